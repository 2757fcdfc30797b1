#include "launcher/job/program_pmi.hpp"

#include <fmt/format.h>

#include <string_view>

namespace mpilaunch::launcher {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// MPICH and its ABI family (Intel MPI, MVAPICH) ship libmpi.so.12; Open MPI 3-5 libmpi.so.40.
bool is_pmi_library(std::string_view lib) {
  return starts_with(lib, "libmpich") || starts_with(lib, "libmpi.so.12") ||
         starts_with(lib, "libpmi.so") || starts_with(lib, "libpmi2.so");
}
bool is_pmix_library(std::string_view lib) {
  return starts_with(lib, "libmpi.so.40") || starts_with(lib, "libpmix.so") ||
         starts_with(lib, "libopen-rte.so") || starts_with(lib, "libopen-pal.so");
}

}  // namespace

PmiChoice choose_pmi(PmiKind requested, const std::string& program,
                     const Result<std::vector<std::string>>& needed) {
  switch (requested) {
    case PmiKind::Pmix:
      return {true, false, "--pmi=pmix"};
    case PmiKind::Pmi1:
      return {false, true, "--pmi=pmi1"};
    case PmiKind::Pmi2:
      return {false, true, "--pmi=pmi2 (the client's init line picks the version)"};
    case PmiKind::Auto:
      break;
  }
  if (!needed)
    return {true, true,
            fmt::format("auto: {}; serving both (--pmi=pmix or --pmi=pmi1 to choose)",
                        needed.error().detail)};
  for (const std::string& lib : needed.value()) {
    if (is_pmi_library(lib))
      return {false, true, fmt::format("auto: {} links {} (MPICH family)", program, lib), true};
    if (is_pmix_library(lib))
      return {true, false, fmt::format("auto: {} links {} (Open MPI or PMIx)", program, lib), true};
  }
  return {true, true,
          fmt::format("auto: {} links no known MPI library directly; serving both (--pmi=pmix or "
                      "--pmi=pmi1 to choose)",
                      program)};
}

void explain_interface_mismatch(Error& error, const PmiChoice& choice) {
  if (error.kind != ErrorKind::PmixError || choice.pmix) return;
  if (!error.detail.empty()) error.detail += "; ";
  error.detail += fmt::format(
      "the ranks were given PMI only ({}), but the program looks for a PMIx server: run it with "
      "--pmi=pmix, or --pmi=auto to read its MPI library",
      choice.reason);
}

std::string pmi_label(const PmiChoice& choice) {
  if (choice.pmix && choice.pmi) return "PMIx and PMI";
  return choice.pmi ? "PMI" : "PMIx";
}

}  // namespace mpilaunch::launcher
