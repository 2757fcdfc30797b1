#include "launcher/job/program_pmi.hpp"

#include <algorithm>
#include <string_view>
#include <variant>

#include "common/text_format.hpp"

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
  // Read for an explicit choice too: a rank of such a program that never reaches the server it
  // was given is a wire-up failure (singleton_error()).
  const bool links_mpi = needed && std::any_of(needed.value().begin(), needed.value().end(),
                                               [](const std::string& lib) {
                                                 return is_pmi_library(lib) || is_pmix_library(lib);
                                               });
  switch (requested) {
    case PmiKind::Pmix:
      return {true, false, "--pmi=pmix", links_mpi};
    case PmiKind::Pmi1:
      return {false, true, "--pmi=pmi1", links_mpi};
    case PmiKind::Pmi2:
      return {false, true, "--pmi=pmi2 (the client's init line picks the version)", links_mpi};
    case PmiKind::Auto:
      break;
  }
  if (!needed)
    return {true, true,
            mpilaunch::format("auto: {}; serving both (--pmi=pmix or --pmi=pmi1 to choose)",
                              needed.error().detail)};
  for (const std::string& lib : needed.value()) {
    if (is_pmi_library(lib))
      return {false, true, mpilaunch::format("auto: {} links {} (MPICH family)", program, lib),
              true};
    if (is_pmix_library(lib))
      return {true, false, mpilaunch::format("auto: {} links {} (Open MPI or PMIx)", program, lib),
              true};
  }
  return {
      true, true,
      mpilaunch::format("auto: {} links no known MPI library directly; serving both (--pmi=pmix or "
                        "--pmi=pmi1 to choose)",
                        program)};
}

Result<PmiChoice> choose_job_pmi(const std::vector<PmiChoice>& contexts,
                                 const std::vector<std::string>& programs) {
  PmiChoice job = contexts.at(0);
  std::optional<std::size_t> pmix_only, pmi_only;
  for (std::size_t c = 0; c < contexts.size(); ++c) {
    const PmiChoice& choice = contexts[c];
    if (choice.links_mpi && choice.pmix && !choice.pmi && !pmix_only) pmix_only = c;
    if (choice.links_mpi && choice.pmi && !choice.pmix && !pmi_only) pmi_only = c;
    job.pmix = job.pmix || choice.pmix;
    job.pmi = job.pmi || choice.pmi;
    job.links_mpi = job.links_mpi && choice.links_mpi;
    if (choice.reason != contexts[0].reason)
      job.reason += mpilaunch::format("; context {}: {}", c + 1, choice.reason);
  }
  if (pmix_only && pmi_only) {
    auto name = [&](std::size_t c) { return c < programs.size() ? programs[c] : std::string(); };
    return Error{
        .kind = ErrorKind::BadOption,
        .executable = name(*pmi_only),
        .detail = mpilaunch::format(
            "application context {} ({}) needs PMIx ({}) and application context {} ({}) needs "
            "PMI ({}): ranks of two MPI libraries cannot share one MPI_COMM_WORLD (mpirun "
            "4.1.4 runs such ranks as singletons and fails); run them as separate jobs, or "
            "give --pmi=pmix or --pmi=pmi1 to serve one interface to every rank",
            *pmix_only + 1, name(*pmix_only), contexts[*pmix_only].reason, *pmi_only + 1,
            name(*pmi_only), contexts[*pmi_only].reason)};
  }
  return job;
}

void explain_interface_mismatch(Error& error, const PmiChoice& choice) {
  if (error.kind != ErrorKind::PmixError || choice.pmix) return;
  if (!error.detail.empty()) error.detail += "; ";
  error.detail += mpilaunch::format(
      "the ranks were given PMI only ({}), but the program looks for a PMIx server: run it with "
      "--pmi=pmix, or --pmi=auto to read its MPI library",
      choice.reason);
}

std::optional<Error> singleton_error(const protocol::RankExited& exit, const std::string& host,
                                     const PmiChoice& choice, std::size_t job_size) {
  const auto* exited = std::get_if<Exited>(&exit.reason);
  if (!choice.links_mpi || job_size < 2 || exit.connected || exit.abort_status ||
      exited == nullptr || exited->code != 0)
    return std::nullopt;
  return Error{
      .kind = ErrorKind::PmixError,
      .host = host,
      .rank = static_cast<int>(exit.rank),
      .pid = exit.pid,
      .phase = "startup",
      .detail = mpilaunch::format(
          "rank {} ended with status 0 without ever reaching its node's {} server: its MPI "
          "found no server it could use and ran it alone as a singleton (rank 0 of 1, not of "
          "{}), or it ended before calling MPI_Init",
          exit.rank, pmi_label(choice), job_size)};
}

std::string pmi_label(const PmiChoice& choice) {
  if (choice.pmix && choice.pmi) return "PMIx and PMI";
  return choice.pmi ? "PMI" : "PMIx";
}

}  // namespace mpilaunch::launcher
