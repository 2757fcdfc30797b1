#pragma once
/// The job's name service: what ranks publish (MPI_Publish_name, Open MPI's accept/connect
/// handshake, PMI publish_name) and look up, served by the launcher for every namespace of the
/// job (docs/dynamic-processes.md). Pure: requests and time come in as values, answers go out
/// as values; the supervisor sends them (supervisor_names.cpp) and runs the one timer.
///
/// The rules are those of mpirun 4.1's data servers: a name published node-local (PMIx local,
/// proc-local) lives apart from the job's and only a node-local lookup on that node finds it;
/// a namespace-range name only its own namespace finds; the same key may be published twice
/// (a lookup returns the oldest); a lookup answers once any key (or the number it waits for) is
/// found. What mpirun leaves open, a wait without a timeout, gets a deadline here: no wait is
/// forever.

#include <chrono>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "common/protocol.hpp"

namespace mpilaunch::launcher {

/// A waiting lookup's deadline when the request names none (Open MPI's accept/connect gives 600 s).
inline constexpr std::chrono::seconds kNameWaitDefault{600};

class NameService {
 public:
  /// One reply to send: to the agent of `node`, referring to its request `id`.
  struct Answer {
    int node = 0;
    std::uint32_t id = 0;
    protocol::NameReply reply;
  };

  /// Stores the names (from an agent on `node`) and answers the lookups waiting for them; the
  /// publisher's own reply (Ok) comes first.
  std::vector<Answer> publish(int node, std::uint32_t id, const protocol::NamePublish& request);
  /// The answer at once, or nothing: the lookup waits (until publish() or expire() answers it).
  std::optional<protocol::NameReply> lookup(int node, std::uint32_t id,
                                            const protocol::NameLookup& request, TimePoint now);
  protocol::NameReply unpublish(int node, const protocol::NameUnpublish& request);

  /// Lookups whose deadline is at or before `now`, answered TimedOut.
  std::vector<Answer> expire(TimePoint now);
  /// The earliest deadline of a waiting lookup.
  std::optional<TimePoint> next_deadline() const;

  /// The process ended: its names of persistence Proc go.
  void proc_ended(const std::string& nspace, std::uint32_t rank);
  /// Every process of the namespace ended: its names of persistence App go (and Proc).
  void namespace_ended(const std::string& nspace);
  /// The agent of `node` is gone: its waiting lookups have no one to answer.
  void node_lost(int node);
  /// The job (this attempt) ends: every name goes and every waiting lookup is answered `why`.
  std::vector<Answer> end_all(protocol::NameStatus why);

  std::size_t names() const { return records_.size(); }
  std::size_t waiting() const { return waiting_.size(); }

 private:
  struct Record {
    int node = 0;
    std::string nspace;
    std::uint32_t rank = 0;
    protocol::NameRange range = protocol::NameRange::Session;
    protocol::NamePersistence persistence = protocol::NamePersistence::App;
    protocol::NameEntry entry;
  };
  struct Waiter {
    int node = 0;
    std::uint32_t id = 0;
    protocol::NameLookup request;
    TimePoint deadline;
  };
  /// The records a lookup would return (the oldest visible one per key, in key order).
  std::vector<std::list<Record>::iterator> matches(int node, const protocol::NameLookup& request);
  /// Builds the reply from `found` and removes what persists only until its first read.
  protocol::NameReply take(const std::vector<std::list<Record>::iterator>& found);

  std::list<Record> records_;  // in publishing order
  std::list<Waiter> waiting_;  // in arrival order
};

}  // namespace mpilaunch::launcher
