#include <doctest/doctest.h>

#include "launcher/job/name_service.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;
using namespace mpilaunch::protocol;
using namespace std::chrono_literals;

namespace {

const TimePoint t0{};

NameEntry text(std::string key, std::string_view value) {
  const auto* p = reinterpret_cast<const std::byte*>(value.data());
  return {std::move(key), NameFormat::Text, {p, p + value.size()}};
}

NamePublish pub(std::string nspace, std::uint32_t rank, std::vector<NameEntry> entries,
                NameRange range = NameRange::Session,
                NamePersistence persistence = NamePersistence::App) {
  return {std::move(nspace), rank, range, persistence, std::move(entries)};
}

NameLookup look(std::string nspace, std::uint32_t rank, std::vector<std::string> keys,
                std::uint32_t wait = 0, std::uint32_t timeout_ms = 0,
                NameRange range = NameRange::Session) {
  return {std::move(nspace), rank, range, std::move(keys), wait, timeout_ms};
}

}  // namespace

TEST_CASE("a published name is found by any rank of the job, with its publisher") {
  NameService names;
  const auto answers = names.publish(0, 7, pub("ns", 0, {text("svc", "port-1")}));
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].id == 7);
  CHECK(answers[0].reply.status == NameStatus::Ok);
  const auto reply = names.lookup(1, 9, look("ns", 2, {"svc"}), t0);
  REQUIRE(reply.has_value());
  CHECK(reply->status == NameStatus::Ok);
  REQUIRE(reply->found.size() == 1);
  CHECK(reply->found[0] == NameFound{"ns", 0, text("svc", "port-1")});
  // A second namespace of the same job (spawned children) sees session names too.
  CHECK(names.lookup(0, 10, look("children", 0, {"svc"}), t0)->found.size() == 1);
}

TEST_CASE("a lookup without wait answers NotFound at once; empty requests are refused") {
  NameService names;
  CHECK(names.lookup(0, 1, look("ns", 0, {"nothing"}), t0)->status == NameStatus::NotFound);
  CHECK(names.lookup(0, 1, look("ns", 0, {}), t0)->status == NameStatus::BadRequest);
  CHECK(names.publish(0, 2, pub("ns", 0, {}))[0].reply.status == NameStatus::BadRequest);
  CHECK(names.waiting() == 0);
}

TEST_CASE("a waiting lookup is answered by the publish, first read removes the name") {
  NameService names;
  CHECK_FALSE(names.lookup(1, 5, look("ns", 1, {"p:accept"}, 1, 600'000), t0).has_value());
  CHECK(names.waiting() == 1);
  CHECK(names.next_deadline() == t0 + 600s);
  const auto answers = names.publish(
      0, 6,
      pub("ns", 0, {text("p:accept", "addr")}, NameRange::Session, NamePersistence::FirstRead));
  REQUIRE(answers.size() == 2);
  CHECK(answers[0].node == 0);
  CHECK(answers[0].id == 6);
  CHECK(answers[1].node == 1);
  CHECK(answers[1].id == 5);
  REQUIRE(answers[1].reply.found.size() == 1);
  CHECK(answers[1].reply.found[0].entry == text("p:accept", "addr"));
  CHECK(names.names() == 0);
  CHECK(names.waiting() == 0);
  CHECK_FALSE(names.next_deadline().has_value());
}

TEST_CASE("a first-read name goes to the lookup that waited first") {
  NameService names;
  CHECK_FALSE(names.lookup(1, 1, look("ns", 1, {"k"}, 1), t0).has_value());
  CHECK_FALSE(names.lookup(2, 2, look("ns", 2, {"k"}, 1), t0 + 1s).has_value());
  const auto answers = names.publish(
      0, 3, pub("ns", 0, {text("k", "v")}, NameRange::Session, NamePersistence::FirstRead));
  REQUIRE(answers.size() == 2);
  CHECK(answers[1].id == 1);
  CHECK(names.waiting() == 1);
  // No timeout given: the service's own deadline, never forever.
  CHECK(names.next_deadline() == t0 + 1s + kNameWaitDefault);
}

TEST_CASE("a waiting lookup times out at its deadline, not before") {
  NameService names;
  CHECK_FALSE(names.lookup(0, 4, look("ns", 0, {"late"}, 1, 2'000), t0).has_value());
  CHECK(names.expire(t0 + 1999ms).empty());
  const auto answers = names.expire(t0 + 2s);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].id == 4);
  CHECK(answers[0].reply.status == NameStatus::TimedOut);
  CHECK(names.waiting() == 0);
}

TEST_CASE("waiting for several keys answers once that many are published") {
  NameService names;
  CHECK_FALSE(names.lookup(0, 1, look("ns", 0, {"a", "b"}, 2), t0).has_value());
  CHECK(names.publish(1, 2, pub("ns", 1, {text("a", "1")})).size() == 1);
  const auto answers = names.publish(1, 3, pub("ns", 1, {text("b", "2")}));
  REQUIRE(answers.size() == 2);
  CHECK(answers[1].reply.found.size() == 2);
}

TEST_CASE("namespace range: only the publisher's namespace finds it") {
  NameService names;
  names.publish(0, 1, pub("ns", 0, {text("k", "v")}, NameRange::Namespace));
  CHECK(names.lookup(0, 2, look("other", 0, {"k"}), t0)->status == NameStatus::NotFound);
  CHECK(names.lookup(1, 3, look("ns", 3, {"k"}), t0)->status == NameStatus::Ok);
}

TEST_CASE("node range lives apart: only a node-local lookup on the same node finds it") {
  NameService names;
  names.publish(0, 1, pub("ns", 0, {text("k", "local")}, NameRange::Node));
  CHECK(names.lookup(0, 2, look("ns", 1, {"k"}), t0)->status == NameStatus::NotFound);
  CHECK(names.lookup(1, 3, look("ns", 2, {"k"}, 0, 0, NameRange::Node), t0)->status ==
        NameStatus::NotFound);
  CHECK(names.lookup(0, 4, look("ns", 1, {"k"}, 0, 0, NameRange::Node), t0)->status ==
        NameStatus::Ok);
}

TEST_CASE("the same key twice: a lookup returns the oldest, unpublish is the publisher's own") {
  NameService names;
  names.publish(0, 1, pub("ns", 0, {text("k", "first")}));
  names.publish(1, 2, pub("ns", 1, {text("k", "second")}));
  CHECK(names.lookup(0, 3, look("ns", 2, {"k"}), t0)->found[0].entry == text("k", "first"));
  names.unpublish(1, NameUnpublish{"ns", 0, NameRange::Session, {"k"}});
  CHECK(names.lookup(0, 4, look("ns", 2, {"k"}), t0)->found[0].entry == text("k", "second"));
  // Another rank's unpublish, or one with another range, removes nothing.
  names.unpublish(0, NameUnpublish{"ns", 0, NameRange::Session, {"k"}});
  names.unpublish(1, NameUnpublish{"ns", 1, NameRange::Namespace, {"k"}});
  CHECK(names.names() == 1);
  names.unpublish(1, NameUnpublish{"ns", 1, NameRange::Session, {}});
  CHECK(names.names() == 0);
}

TEST_CASE("persistence: proc names go with their process, app names with their namespace") {
  NameService names;
  names.publish(0, 1, pub("ns", 0, {text("p", "1")}, NameRange::Session, NamePersistence::Proc));
  names.publish(0, 2, pub("ns", 0, {text("a", "2")}, NameRange::Session, NamePersistence::App));
  names.publish(0, 3, pub("ns", 0, {text("s", "3")}, NameRange::Session, NamePersistence::Session));
  names.proc_ended("ns", 1);
  CHECK(names.names() == 3);
  names.proc_ended("ns", 0);
  CHECK(names.names() == 2);
  names.namespace_ended("ns");
  CHECK(names.names() == 1);
  CHECK(names.lookup(0, 4, look("ns", 1, {"s"}), t0)->status == NameStatus::Ok);
}

TEST_CASE("the job's end answers every waiting lookup and forgets every name") {
  NameService names;
  names.publish(0, 1, pub("ns", 0, {text("k", "v")}));
  CHECK_FALSE(names.lookup(1, 2, look("ns", 1, {"x"}, 1), t0).has_value());
  CHECK_FALSE(names.lookup(2, 3, look("ns", 2, {"y"}, 1), t0).has_value());
  names.node_lost(2);
  const auto answers = names.end_all(NameStatus::JobEnded);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].node == 1);
  CHECK(answers[0].reply.status == NameStatus::JobEnded);
  CHECK(names.names() == 0);
  CHECK(names.waiting() == 0);
}
