// Warp intrinsics: every _sync intrinsic is a rendezvous of the lanes named
// in its mask. Each lane deposits its operand and waits; the lane that
// completes the mask computes every participant's result and wakes the
// others. Lanes outside the mask are never waited for.
#include <cstdio>

#include "block_scheduler.hpp"
#include "launch_observer.hpp"

namespace cpu_backend::detail {
namespace {

bool valid_width(int width) { return width >= 1 && width <= 32 && (width & (width - 1)) == 0; }

// The lane whose operand `lane` receives, following the PTX shfl.sync rules:
// sources outside the lane's width-sized segment (or, for xor, in a later
// segment) yield the lane's own value.
std::uint32_t shuffle_source(warp_op op, std::uint32_t lane, int parameter, int width) {
    const int segment_low = static_cast<int>(lane) & ~(width - 1);
    const int segment_high = segment_low + width - 1;
    const int self = static_cast<int>(lane);
    int source = self;
    switch (op) {
        case warp_op::shfl_idx:
            source = segment_low + (parameter & (width - 1));
            break;
        case warp_op::shfl_up:
            source = self - parameter;
            if (parameter < 0 || source < segment_low) source = self;
            break;
        case warp_op::shfl_down:
            source = self + parameter;
            if (parameter < 0 || source > segment_high) source = self;
            break;
        case warp_op::shfl_xor:
            source = self ^ parameter;
            if (source < 0 || source > segment_high) source = self;
            break;
        default:
            break;
    }
    return static_cast<std::uint32_t>(source);
}

}  // namespace

const char* warp_op_name(warp_op op) {
    switch (op) {
        case warp_op::shfl_idx: return "__shfl_sync";
        case warp_op::shfl_up: return "__shfl_up_sync";
        case warp_op::shfl_down: return "__shfl_down_sync";
        case warp_op::shfl_xor: return "__shfl_xor_sync";
        case warp_op::ballot: return "__ballot_sync";
        case warp_op::any: return "__any_sync";
        case warp_op::all: return "__all_sync";
        case warp_op::syncwarp: return "__syncwarp";
        case warp_op::match_any: return "__match_any_sync";
        case warp_op::match_all: return "__match_all_sync";
        case warp_op::reduce_add: return "__reduce_add_sync";
        case warp_op::reduce_min_unsigned:
        case warp_op::reduce_min_signed: return "__reduce_min_sync";
        case warp_op::reduce_max_unsigned:
        case warp_op::reduce_max_signed: return "__reduce_max_sync";
        case warp_op::reduce_and: return "__reduce_and_sync";
        case warp_op::reduce_or: return "__reduce_or_sync";
        case warp_op::reduce_xor: return "__reduce_xor_sync";
    }
    return "a warp intrinsic";
}

std::string hex_mask(std::uint32_t mask) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", mask);
    return text;
}

std::string lane_list(std::uint32_t lanes) {
    std::string text;
    for (std::uint32_t lane = 0; lane < 32;) {
        if (!((lanes >> lane) & 1u)) {
            ++lane;
            continue;
        }
        std::uint32_t end = lane;
        while (end + 1 < 32 && ((lanes >> (end + 1)) & 1u)) ++end;
        if (!text.empty()) text += ",";
        text += std::to_string(lane);
        if (end > lane) text += "-" + std::to_string(end);
        lane = end + 1;
    }
    return text;
}

std::uint64_t block_scheduler::warp_collective(warp_op op, std::uint32_t mask, std::uint64_t value, int parameter,
                                               int width) {
    const std::uint32_t self = current_;
    const std::uint32_t warp = self / 32;
    const std::uint32_t lane = self % 32;
    warp_status& status = warps_[warp];
    auto where = [&] {  // built only when something is wrong
        return describe_thread(self) + " (warp " + std::to_string(warp) + ", lane " + std::to_string(lane) +
               ") called " + warp_op_name(op) + " with mask " + hex_mask(mask);
    };
    if (!((mask >> lane) & 1u)) fault(cudaErrorLaunchFailure, where() + ", which does not include its own lane");
    if ((mask & ~status.existing) != 0)
        fault(cudaErrorLaunchFailure, where() + ", but lanes " + lane_list(mask & ~status.existing) +
                                          " of that warp do not exist (the block has " +
                                          std::to_string(thread_count_) + " threads)");
    if (!valid_width(width))
        fault(cudaErrorLaunchFailure, where() + " and width " + std::to_string(width) +
                                          "; the width must be a power of 2 from 1 to 32");

    cuda_thread& thread = threads_[self];
    thread.op = op;
    thread.op_mask = mask;
    thread.op_value = value;
    thread.op_parameter = parameter;
    thread.op_width = width;
    check_warp_agreement(self, warp);
    status.waiting |= 1u << lane;
    if ((status.waiting & mask) == mask) {
        complete_warp_collective(warp, mask);
        return thread.op_result;
    }
    mark_blocked(self, thread_state::at_warp_op);
    switch_to_next();
    return threads_[self].op_result;
}

// Lanes that wait for each other must call the same intrinsic with the same
// mask (CUDA leaves anything else undefined); say so instead of guessing.
// Lanes already waiting in this mask agree with each other (each was
// checked on arrival), so comparing with one of them is enough.
void block_scheduler::check_warp_agreement(std::uint32_t self, std::uint32_t warp) {
    const cuda_thread& mine = threads_[self];
    const std::uint32_t others = warps_[warp].waiting & mine.op_mask;
    if (others == 0) return;
    const std::uint32_t other_lane = static_cast<std::uint32_t>(__builtin_ctz(others));
    const cuda_thread& other = threads_[warp * 32 + other_lane];
    if (other.op == mine.op && other.op_mask == mine.op_mask) return;
    fault(cudaErrorLaunchFailure,
          "lanes of warp " + std::to_string(warp) + " of " + describe_block() + " disagree: lane " +
              std::to_string(self % 32) + " called " + warp_op_name(mine.op) + " with mask " +
              hex_mask(mine.op_mask) + " while lane " + std::to_string(other_lane) + " waits in " +
              warp_op_name(other.op) + " with mask " + hex_mask(other.op_mask) +
              " (all lanes named in a mask must call the same intrinsic with the same mask)");
}

void block_scheduler::complete_warp_collective(std::uint32_t warp, std::uint32_t mask) {
    const std::uint32_t base = warp * 32;
    const warp_op op = threads_[current_].op;
    std::uint32_t ballot = 0;
    std::uint32_t sum = 0, bit_and = 0xffffffffu, bit_or = 0, bit_xor = 0;
    std::uint32_t min_unsigned = 0xffffffffu, max_unsigned = 0;
    std::int32_t min_signed = INT32_MAX, max_signed = INT32_MIN;
    bool all_equal = true;
    const std::uint64_t first_value = threads_[base + static_cast<std::uint32_t>(__builtin_ctz(mask))].op_value;
    for (std::uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
        const std::uint32_t lane = static_cast<std::uint32_t>(__builtin_ctz(lanes));
        const std::uint64_t value = threads_[base + lane].op_value;
        const auto value32 = static_cast<std::uint32_t>(value);
        if (value != 0) ballot |= 1u << lane;
        all_equal = all_equal && value == first_value;
        sum += value32;
        bit_and &= value32;
        bit_or |= value32;
        bit_xor ^= value32;
        min_unsigned = value32 < min_unsigned ? value32 : min_unsigned;
        max_unsigned = value32 > max_unsigned ? value32 : max_unsigned;
        const auto signed32 = static_cast<std::int32_t>(value32);
        min_signed = signed32 < min_signed ? signed32 : min_signed;
        max_signed = signed32 > max_signed ? signed32 : max_signed;
    }
    for (std::uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
        const std::uint32_t lane = static_cast<std::uint32_t>(__builtin_ctz(lanes));
        cuda_thread& thread = threads_[base + lane];
        std::uint64_t result = 0;
        switch (op) {
            case warp_op::shfl_idx:
            case warp_op::shfl_up:
            case warp_op::shfl_down:
            case warp_op::shfl_xor: {
                // A source lane outside the mask gives an undefined value on
                // a GPU; here it is whatever that lane last deposited.
                const std::uint32_t source = shuffle_source(op, lane, thread.op_parameter, thread.op_width);
                result = threads_[base + source].op_value;
                break;
            }
            case warp_op::ballot: result = ballot; break;
            case warp_op::any: result = ballot != 0; break;
            case warp_op::all: result = ballot == mask; break;
            case warp_op::syncwarp: result = 0; break;
            case warp_op::match_any: {
                std::uint32_t same = 0;
                for (std::uint32_t others = mask; others != 0; others &= others - 1) {
                    const std::uint32_t other = static_cast<std::uint32_t>(__builtin_ctz(others));
                    if (threads_[base + other].op_value == thread.op_value) same |= 1u << other;
                }
                result = same;
                break;
            }
            case warp_op::match_all: result = all_equal ? mask : 0; break;
            case warp_op::reduce_add: result = sum; break;
            case warp_op::reduce_min_unsigned: result = min_unsigned; break;
            case warp_op::reduce_max_unsigned: result = max_unsigned; break;
            case warp_op::reduce_min_signed: result = static_cast<std::uint32_t>(min_signed); break;
            case warp_op::reduce_max_signed: result = static_cast<std::uint32_t>(max_signed); break;
            case warp_op::reduce_and: result = bit_and; break;
            case warp_op::reduce_or: result = bit_or; break;
            case warp_op::reduce_xor: result = bit_xor; break;
        }
        thread.op_result = result;
    }
    warps_[warp].waiting &= ~mask;
    if (launch_observer* observer = installed_launch_observer()) observer->warp_synchronized(warp, mask, op);
    for (std::uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
        const std::uint32_t thread = base + static_cast<std::uint32_t>(__builtin_ctz(lanes));
        if (thread != current_) make_runnable(thread);
    }
}

std::uint32_t block_scheduler::activemask(const void* call_site) {
    const std::uint32_t self = current_;
    const std::uint32_t warp = self / 32;
    threads_[self].activemask_site = call_site;
    warps_[warp].activemask_waiting |= 1u << (self % 32);
    // Wait until no other lane of the warp can run; the lanes that then wait
    // at this same call are the active ones.
    mark_blocked(self, thread_state::at_activemask);
    switch_to_next();
    return static_cast<std::uint32_t>(threads_[self].op_result);
}

void block_scheduler::resolve_activemask(std::uint32_t warp) {
    const std::uint32_t base = warp * 32;
    std::uint32_t pending = warps_[warp].activemask_waiting;
    warps_[warp].activemask_waiting = 0;
    while (pending != 0) {
        const void* site = threads_[base + static_cast<std::uint32_t>(__builtin_ctz(pending))].activemask_site;
        std::uint32_t group = 0;
        for (std::uint32_t lanes = pending; lanes != 0; lanes &= lanes - 1) {
            const std::uint32_t lane = static_cast<std::uint32_t>(__builtin_ctz(lanes));
            if (threads_[base + lane].activemask_site == site) group |= 1u << lane;
        }
        for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
            const std::uint32_t thread = base + static_cast<std::uint32_t>(__builtin_ctz(lanes));
            threads_[thread].op_result = group;
            make_runnable(thread);
        }
        pending &= ~group;
    }
}

}  // namespace cpu_backend::detail
