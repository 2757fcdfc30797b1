// The launcher's stdin (issue 20, item 1): rank 0 reads it, byte for byte, every other rank
// reads /dev/null, as under mpirun; end of file reaches rank 0; a rank that reads slowly holds
// the launcher back instead of making it buffer everything. Through a pipe and from a file.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {

namespace {

std::string payload(std::size_t bytes) {
  return binary_payload(bytes);
}

const std::string kEmptyMd5 = "d41d8cd98f00b204e9800998ecf8427e";

std::map<int, std::string> digests(const std::string& out) {
  static const std::regex kLine(R"(rank (\d+) ([0-9a-f]{32}))");
  std::map<int, std::string> by_rank;
  for (const std::string& line : lines_of(out)) {
    std::smatch m;
    if (std::regex_match(line, m, kLine)) by_rank[std::stoi(m[1])] = m[2];
  }
  return by_rank;
}

// Each rank prints "rank R <md5 of everything it read on stdin>".
constexpr const char* kPrintDigest = "echo \"rank $OMPI_COMM_WORLD_RANK $(md5sum | cut -c1-32)\"";

// `c` run by a shell that first applies `redirection` to its stdin (`<FILE`, `0<&-`).
void redirect_stdin(Command& c, const std::string& redirection) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" " + redirection, "sh"};
  argv.insert(argv.end(), c.argv.begin(), c.argv.end());
  c.argv = argv;
}

// A job of `ranks` ranks running kPrintDigest succeeded, every rank reported, rank R read
// exactly the bytes whose digest is want_of(R), and nothing was left behind.
void check_digests(const Job& job, const Outcome& o, int ranks,
                   const std::function<std::string(int)>& want_of) {
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const auto got = digests(o.out);
  CHECK_MESSAGE(got.size() == static_cast<std::size_t>(ranks), o.out);
  for (int rank = 0; rank < ranks; ++rank) {
    CAPTURE(rank);
    CHECK_MESSAGE(got.count(rank) == 1, o.out);
    if (got.count(rank) == 1) CHECK(got.at(rank) == want_of(rank));
  }
  check_events(job, 0);
  check_nothing_left(job, o);
}

}  // namespace

TEST_CASE("stdin: 50 MB through a pipe reach rank 0 byte for byte; rank 1 reads /dev/null") {
  Job job;
  const std::string data = payload(50'000'000);
  write_file(job.dir().file("input"), data);
  const std::string want = md5_of_file(job.dir().file("input"));
  Command c = job.command({"--events", job.events_path(), "-n", "2", "/bin/sh", "-c", kPrintDigest},
                          Millis{120'000});
  c.stdin_text = data;
  check_digests(job, run(c), 2, [&](int rank) { return rank == 0 ? want : kEmptyMd5; });
}

TEST_CASE("stdin: 50 MB from a file (< input) reach rank 0 byte for byte") {
  Job job;
  const std::string input = job.dir().file("input");
  write_file(input, payload(50'000'000));
  const std::string want = md5_of_file(input);
  Command c = job.command({"--events", job.events_path(), "-n", "2", "/bin/sh", "-c", kPrintDigest},
                          Millis{120'000});
  redirect_stdin(c, "<" + input);
  check_digests(job, run(c), 2, [&](int rank) { return rank == 0 ? want : kEmptyMd5; });
}

TEST_CASE("stdin: ranks that never read it do not hold the job; a closed stdin is end of file") {
  {
    Job job;
    Command c = job.command({"--events", job.events_path(), "-n", "2", "/bin/true"});
    c.stdin_text = payload(20'000'000);
    const Outcome o = run(c);
    CHECK_MESSAGE(o.status() == 0, o.summary());
    check_events(job, 0);
    check_nothing_left(job, o);
  }
  {
    // As in CI: no stdin at all. Rank 0 reads end of file at once.
    Job job;
    Command c =
        job.command({"--events", job.events_path(), "-n", "2", "/bin/sh", "-c", kPrintDigest});
    redirect_stdin(c, "0<&-");
    check_digests(job, run(c), 2, [](int) { return kEmptyMd5; });
  }
}

// `salloc ... mpilaunch` with salloc's stdin closed: salloc's own listening socket is the
// launcher's descriptor 0, and reading it fails (ENOTCONN). That is end of file for the ranks,
// said once; every rank's output still arrives, the job exits 0, and the descriptor, which
// salloc shares, is left blocking as it was. The same for a socket never bound.
TEST_CASE("stdin: an unconnected socket on stdin (salloc's) is end of file; no output is lost") {
  for (const bool listening : {true, false}) {
    CAPTURE(listening);
    const int sock = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(sock >= 0);
    if (listening) {
      sockaddr_in loopback{};
      loopback.sin_family = AF_INET;
      loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // port 0: any free one
      REQUIRE(::bind(sock, reinterpret_cast<const sockaddr*>(&loopback), sizeof loopback) == 0);
      REQUIRE(::listen(sock, 1) == 0);
    }
    const int flags_before = ::fcntl(sock, F_GETFL);
    {
      // Real MPI ranks, as in the report: both hello lines.
      Job job;
      Command c = job.command({"--events", job.events_path(), "-n", "2", app("hello")});
      c.stdin_fd = sock;
      const Outcome o = run(c);
      CHECK_MESSAGE(o.status() == 0, o.summary());
      for (const char* line : {"hello rank 0 of 2", "hello rank 1 of 2"})
        CHECK_MESSAGE(o.out.find(line) != std::string::npos, o.out);
      const std::string warning = "mpilaunch: reading stdin: Transport endpoint is not connected";
      const std::size_t first = o.err.find(warning);
      CHECK_MESSAGE(first != std::string::npos, o.err);
      CHECK_MESSAGE(o.err.find(warning, first + 1) == std::string::npos, o.err);
      check_events(job, 0);
      check_nothing_left(job, o);
    }
    {
      // Rank 0 reads end of file at once, as rank 1 reads /dev/null.
      Job job;
      Command c =
          job.command({"--events", job.events_path(), "-n", "2", "/bin/sh", "-c", kPrintDigest});
      c.stdin_fd = sock;
      check_digests(job, run(c), 2, [](int) { return kEmptyMd5; });
    }
    CHECK(::fcntl(sock, F_GETFL) == flags_before);
    ::close(sock);
  }
}

TEST_CASE(
    "stdin: --stdin 1, all and none pick the ranks that read it; a rank not in the job is "
    "refused") {
  const std::string data = payload(300'000);
  std::string want;
  {
    Job job;
    write_file(job.dir().file("input"), data);
    want = md5_of_file(job.dir().file("input"));
  }
  struct Case {
    std::string target;
    std::vector<bool> reads;  // per rank: gets the data (else end of file at once)
  };
  const Case cases[] = {
      {"1", {false, true, false}}, {"all", {true, true, true}}, {"none", {false, false, false}}};
  for (const Case& k : cases) {
    CAPTURE(k.target);
    Job job;
    Command c = job.command({"--events", job.events_path(), "--stdin", k.target, "-n", "2",
                             "/bin/sh", "-c", kPrintDigest},
                            Millis{120'000});
    c.stdin_text = data;
    check_digests(job, run(c), 2, [&](int rank) {
      return k.reads.at(static_cast<std::size_t>(rank)) ? want : kEmptyMd5;
    });
  }
  Job job;
  const Outcome o = run(job.command({"--stdin", "5", "-n", "2", "/bin/true"}));
  CHECK_MESSAGE(o.status() != 0, o.summary());
  CHECK_MESSAGE(o.err.find("--stdin 5") != std::string::npos, o.err);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
