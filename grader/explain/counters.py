"""The counters an explanation speaks of, from the counting mode's per-launch records
(counting/count_kernels.count) or the same metrics read from a GPU (explain/gpu_counters.py): each
graded function's launches summed, then a few ratios. One name, one meaning: the names below are
the ones labs/NN-*/counters.json declare and results documents carry.
"""

# name: (words in a sentence, which way is worse, how it is printed)
COUNTERS = {
    'global_load_requests': ('global load requests', 'higher', '{:.0f}'),
    'global_load_sectors_per_request': ('32-byte sectors per global load request', 'higher', '{:.2f}'),
    'global_store_requests': ('global store requests', 'higher', '{:.0f}'),
    'global_store_sectors_per_request': ('32-byte sectors per global store request', 'higher', '{:.2f}'),
    'global_atomic_requests': ('warp-level global atomics', 'higher', '{:.0f}'),
    # Thread-level atomics on global memory over those on global and shared memory: what
    # privatization lowers. On a small input a privatized kernel's merge costs about as many
    # warp-level global atomics as counting in global memory would; this share still tells them apart.
    'global_atomic_share': ('share of atomic operations on global memory', 'higher', '{:.0%}'),
    'global_atomic_lanes_per_address': ('lanes per address in a warp-level global atomic', 'higher', '{:.2f}'),
    'shared_atomic_requests': ('warp-level shared atomics', 'higher', '{:.0f}'),
    'shared_atomic_lanes_per_address': ('lanes per address in a warp-level shared atomic', 'higher', '{:.2f}'),
    'shared_requests': ('shared load and store requests', 'higher', '{:.0f}'),
    'shared_wavefronts': ('shared wavefronts', 'higher', '{:.0f}'),
    'shared_bank_conflicts_per_request': ('shared bank conflicts per request', 'higher', '{:.2f}'),
    'barriers': ('block barriers', 'higher', '{:.0f}'),
    # The counting mode's only: the global loads a thread issues one after another, in code order,
    # before an atomic or a store (which may need their data), averaged over the loads; 4 for four
    # loads then four atomics, 1 for load-atomic pairs. From the order of the access sites in the
    # host compiler's code, which keeps the source order of accesses (no GPU metric says it).
    'global_loads_in_flight': ('global loads back to back before an atomic/store', 'lower', '{:.1f}'),
    'warp_instructions': ('warp instructions', 'higher', '{:.0f}'),
    'active_lanes_per_instruction': ('active lanes per warp instruction (of 32)', 'lower', '{:.1f}'),
    'launches': ('kernel launches', 'higher', '{:.0f}'),
    'occupancy': ('theoretical occupancy', 'lower', '{:.0%}'),
}

def _ratio(a, b):
    return a / b if b else 0.0


def _load_runs(sites):
    """(sum over global load sites of requests x the length of its run, their requests): a run is
    the load sites between two atomics or stores, in the order of their code addresses."""
    weighted = total = 0
    run = []
    for site in sorted(sites, key=lambda s: int(str(s.get('pc', '0')), 16)) + [None]:
        if site is not None and site['kind'] == 'global_load':
            run.append(site['requests'])
        elif site is None or site['kind'].endswith(('_atomic', '_store')):
            weighted += len(run) * sum(run)
            total += sum(run)
            run = []
    return weighted, total


def per_function(launches):
    """{graded function (the launch's label): {counter: value}} of the launches' records, summed
    over each function's launches (a multi-kernel scan counts all of them)."""
    sums, occupancy, launch_count, load_runs = {}, {}, {}, {}
    for launch in launches:
        label = launch['label']
        total = sums.setdefault(label, {})
        for key, value in launch['metrics'].items():
            total[key] = total.get(key, 0) + value
        if 'sites' in launch:  # the counting mode's records; a GPU's have none
            weighted, loads = _load_runs(launch['sites'])
            before = load_runs.get(label, (0, 0))
            load_runs[label] = (before[0] + weighted, before[1] + loads)
        total['barriers'] = total.get('barriers', 0) + launch.get('barriers', 0)
        launch_count[label] = launch_count.get(label, 0) + 1
        if launch.get('occupancy'):
            occupancy[label] = min(occupancy.get(label, 1.0), launch['occupancy']['occupancy'])
    found = {}
    for label, m in sums.items():
        get = m.get
        shared_requests = get('shared_load_requests', 0) + get('shared_store_requests', 0)
        found[label] = {
            'global_load_requests': get('global_load_requests', 0),
            'global_load_sectors_per_request': _ratio(get('global_load_sectors', 0), get('global_load_requests', 0)),
            'global_store_requests': get('global_store_requests', 0),
            'global_store_sectors_per_request': _ratio(get('global_store_sectors', 0), get('global_store_requests', 0)),
            'global_atomic_requests': get('global_atomic_requests', 0),
            'global_atomic_share': _ratio(get('global_atomic_operations', 0),
                                          get('global_atomic_operations', 0) + get('shared_atomic_operations', 0)),
            'global_atomic_lanes_per_address': _ratio(get('global_atomic_operations', 0),
                                                      get('global_atomic_distinct_addresses', 0)),
            'shared_atomic_requests': get('shared_atomic_requests', 0),
            'shared_atomic_lanes_per_address': _ratio(get('shared_atomic_operations', 0),
                                                      get('shared_atomic_distinct_addresses', 0)),
            'shared_requests': shared_requests,
            'shared_wavefronts': get('shared_load_wavefronts', 0) + get('shared_store_wavefronts', 0),
            'shared_bank_conflicts_per_request': _ratio(get('shared_load_bank_conflicts', 0) + get('shared_store_bank_conflicts', 0), shared_requests),
            'barriers': get('barriers', 0),
            'warp_instructions': get('warp_instructions', 0),
            'active_lanes_per_instruction': _ratio(get('active_lanes', 0), get('warp_instructions', 0)),
            'launches': launch_count[label],
        }
        if label in load_runs:
            found[label]['global_loads_in_flight'] = _ratio(*load_runs[label])
        if label in occupancy:
            found[label]['occupancy'] = occupancy[label]
    return found


def show(counter, value):
    """The value as the tables print it."""
    return COUNTERS[counter][2].format(value)


def differs(counter, student, reference, slack, floor):
    """Whether `student` is worse than `reference` by more than the declared normal: by more than
    `slack` times the reference's value and more than `floor` in the counter's own unit."""
    worse = COUNTERS[counter][1]
    gap = student - reference if worse == 'higher' else reference - student
    return gap > max(slack * abs(reference), floor)
