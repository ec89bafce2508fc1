// The fiber switch through Boost.Context's fcontext: hand-written switches
// like ours, maintained by Boost for every CPU and object format (macOS on
// Intel and Apple silicon included), hence the choice where this backend has
// none of its own (meson.build, README.md).
//
// fcontext differs from our interface in one way: a suspended context's handle
// is not written by the switch that suspends it but handed to the context that
// is resumed (as transfer_t::fctx). So every switch passes a record naming the
// context to save into, and whoever resumes - the switch returning, or a new
// fiber's first function - stores the handle there.
#include "fiber.hpp"

#if CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_BOOST

#include <boost/context/detail/fcontext.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cpu_backend::detail {
namespace {

namespace fc = boost::context::detail;

struct switch_record {
    boost_fiber_context* from;      // where the suspended context's handle goes
    const boost_fiber_context* to;  // a new fiber reads its entry function here
};

void save_suspended(const fc::transfer_t& transfer) {
    static_cast<switch_record*>(transfer.data)->from->handle = transfer.fctx;
}

void fiber_start(fc::transfer_t transfer) {
    const auto* record = static_cast<switch_record*>(transfer.data);
    const fiber_entry_fn entry = record->to->entry;
    void* const argument = record->to->argument;
    save_suspended(transfer);
    entry(argument);
    std::fputs("cpu_backend: a fiber entry function returned\n", stderr);
    std::abort();
}

}  // namespace

void boost_fiber_prepare(boost_fiber_context& context, void* stack_low, std::size_t stack_size,
                         fiber_entry_fn entry, void* argument) {
    // make_fcontext takes the top of the stack (stacks grow down on every CPU Boost supports here).
    auto top = (reinterpret_cast<std::uintptr_t>(stack_low) + stack_size) & ~std::uintptr_t{15};
    context.handle = fc::make_fcontext(reinterpret_cast<void*>(top),
                                       top - reinterpret_cast<std::uintptr_t>(stack_low), &fiber_start);
    context.entry = entry;
    context.argument = argument;
}

void boost_fiber_switch(boost_fiber_context& from, const boost_fiber_context& to) {
    switch_record record{&from, &to};
    save_suspended(fc::jump_fcontext(to.handle, &record));
}

}  // namespace cpu_backend::detail

#endif
