#pragma once
/// Application contexts (MPMD `a : b`, `--app FILE`) take consecutive ranks in context order:
/// which context holds a rank is asked by the launcher (its plan), the agent (PMIX_APPNUM) and
/// the PMI server (PMI_Get_appnum). Pure.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ranges>

namespace mpilaunch {

/// The index of the context holding `rank`, given the contexts in order and `size_of(context)`,
/// its number of ranks. A rank past the last context is in context 0 (the single-context
/// default).
template <std::ranges::input_range Contexts, class SizeOf = std::identity>
std::size_t context_of_rank(const Contexts& contexts, std::uint64_t rank, SizeOf size_of = {}) {
  std::uint64_t end = 0;
  std::size_t index = 0;
  for (const auto& context : contexts) {
    end += static_cast<std::uint64_t>(std::invoke(size_of, context));
    if (rank < end) return index;
    ++index;
  }
  return 0;
}

}  // namespace mpilaunch
