"""The one table of the counting mode's counters and the Nsight Compute (ncu) metrics that count the
same on a GPU. The counting mode's records (cpu_backend/counting/records.cpp, schema
cpu-backend-counts/v2) name each launch's counters by the names on the left; ncu's CSV is turned
into the same names here (from_ncu), so that nothing else in the grader spells an ncu metric.

Adding a counter: count it in cpu_backend/counting/ (counting.hpp's launch_totals and the
COUNTING_COUNTERS list records.cpp writes), name its ncu metric here if a GPU counts it too, and
give explain/counters.py the ratio an explanation speaks of (CONTRIBUTING.md, "Add a counter").
"""

# counter: the ncu metrics whose sum is the same figure (empty: the CPU model's alone)
COUNTERS = {
    'global_load_requests': ('l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum',),
    'global_load_sectors': ('l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum',),
    'global_store_requests': ('l1tex__t_requests_pipe_lsu_mem_global_op_st.sum',),
    'global_store_sectors': ('l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum',),
    'shared_load_requests': ('smsp__inst_executed_op_shared_ld.sum',),
    'shared_load_wavefronts': ('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum',),
    'shared_load_bank_conflicts': ('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum',),
    'shared_store_requests': ('smsp__inst_executed_op_shared_st.sum',),
    'shared_store_wavefronts': ('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum',),
    'shared_store_bank_conflicts': ('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum',),
    # atom: the result is used (ATOMG); red: it is not (REDG). The counting mode counts both.
    'global_atomic_requests': ('l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum',
                               'l1tex__t_requests_pipe_lsu_mem_global_op_red.sum'),
    'shared_atomic_requests': ('smsp__inst_executed_op_shared_atom.sum',),
    'warp_instructions': ('smsp__inst_executed.sum',),
    'active_lanes': ('smsp__thread_inst_executed.sum',),
    'global_atomic_operations': (),
    'global_atomic_distinct_addresses': (),
    'shared_atomic_operations': (),
    'shared_atomic_distinct_addresses': (),
    'partial_warp_instructions': (),
    'shuffle_lanes': (),  # lanes that called a shuffle intrinsic (no memory access: not in the above)
}
# The counters the comparison with ncu holds to the CPU model's (compare_ncu.py): the memory
# counters; instructions differ by construction (g++'s code is not nvcc's).
COMPARED = ['global_load_requests', 'global_load_sectors', 'global_store_requests', 'global_store_sectors',
            'shared_load_requests', 'shared_load_wavefronts', 'shared_load_bank_conflicts',
            'shared_store_requests', 'shared_store_wavefronts', 'shared_store_bank_conflicts',
            'global_atomic_requests', 'shared_atomic_requests']
# ncu's theoretical occupancy of a launch, in percent (its Occupancy section's figure).
OCCUPANCY = 'sm__maximum_warps_per_active_cycle_pct'


def ncu_names(counters):
    """The ncu metrics to ask for, to learn `counters`."""
    return [metric for counter in counters for metric in COUNTERS[counter]]


def from_ncu(values):
    """{counter: value} of one launch's ncu figures {metric: value}: each counter of which ncu gave
    at least one metric, as the sum of those it gave."""
    found = {}
    for counter, names in COUNTERS.items():
        given = [values[m] for m in names if m in values]
        if given:
            found[counter] = sum(given)
    return found


def wavefronts_of(conflicts):
    """The wavefront counter beside a bank-conflict counter (their base for 'within 2 %')."""
    return conflicts.replace('bank_conflicts', 'wavefronts')
