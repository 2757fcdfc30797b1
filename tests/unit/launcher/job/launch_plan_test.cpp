#include <doctest/doctest.h>

#include "common/exit_codes.hpp"
#include "common/text_format.hpp"
#include "launcher/job/launch_plan.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {
const MachineFacts kMachine{"box", 4, "/home/u"};
std::optional<std::string> env(const std::string& name) {
  if (name == "HOME") return std::string("/home/u");
  return std::nullopt;
}
Options opts(std::vector<std::string> args) {
  return parse_options(args).value();
}
}  // namespace

TEST_CASE("no hosts: isolated local mode with one slot per CPU") {
  const auto plan = make_plan(opts({"./a"}), HostList{}, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->isolated);
  CHECK(plan->launcher == LauncherKind::Local);
  CHECK(plan->map.size() == 4);
  CHECK(plan->nodes.front().name == "box");
  CHECK(plan->apps.at(0).wdir == "/home/u");
}

TEST_CASE(
    "named hosts default to ssh unless they are this machine; --launcher=local forces local") {
  const HostList remote{{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}}, "-H"};
  CHECK(make_plan(opts({"./a"}), remote, kMachine, env)->launcher == LauncherKind::Ssh);
  CHECK(make_plan(opts({"--launcher=local", "./a"}), remote, kMachine, env)->launcher ==
        LauncherKind::Local);
  const HostList local{{{.name = "localhost", .slots = 2}}, "-H"};
  CHECK(make_plan(opts({"./a"}), local, kMachine, env)->launcher == LauncherKind::Local);
  CHECK(make_plan(opts({"--launcher=ssh", "./a"}), HostList{}, kMachine, env).error().kind ==
        ErrorKind::BadOption);
}

TEST_CASE("-x and --mca become rank environment; unset -x names warn") {
  const auto plan = make_plan(opts({"-x", "A=1", "-x", "HOME", "-x", "NOPE", "--mca", "btl", "tcp",
                                    "--wdir", "sub", "./a"}),
                              HostList{}, kMachine, env);
  CHECK(plan->apps.at(0).env == std::vector<std::string>{"A=1", "HOME=/home/u"});
  CHECK(plan->env == std::vector<std::string>{"OMPI_MCA_btl=tcp"});
  CHECK(plan->warnings.size() == 1);
  CHECK(plan->apps.at(0).wdir == "/home/u/sub");
}

TEST_CASE("slot shortage is reported with the program name") {
  const auto plan = make_plan(opts({"-n", "9", "./a"}), HostList{}, kMachine, env);
  REQUIRE_FALSE(plan.has_value());
  CHECK(plan.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(plan.error().executable == "./a");
}

TEST_CASE("the dry-run plan lists hosts, ranks and agent commands") {
  const HostList hosts{{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}}, "-H n1:2,n2:2"};
  const auto plan = make_plan(opts({"--launcher=local", "-n", "3", "./a"}), hosts, kMachine, env);
  const std::string text = render_plan(plan.value(), "/bin/mpilaunch-agent --stdio");
  CHECK(text.find("hosts from: -H n1:2,n2:2") != std::string::npos);
  CHECK(text.find("n1 (slots 2): ranks 0,1") != std::string::npos);
  CHECK(text.find("n2 (slots 2): ranks 2") != std::string::npos);
  CHECK(text.find("agent: /bin/mpilaunch-agent --stdio") != std::string::npos);
}

TEST_CASE("inside a Slurm allocation its hosts go through srun; --launcher overrides") {
  const EnvLookup in_job = [](const std::string& name) -> std::optional<std::string> {
    if (name == "SLURM_JOB_ID") return std::string("42");
    return std::nullopt;
  };
  const HostList slurm{{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}}, "slurm n[1-2]"};
  const auto plan = make_plan(opts({"./a"}), slurm, kMachine, in_job);
  REQUIRE(plan.has_value());
  CHECK(plan->launcher == LauncherKind::Srun);
  CHECK(render_plan(plan.value(), "srun --nodelist=NODE x --stdio")
            .find("srun --nodelist=n2 x --stdio") != std::string::npos);
  CHECK(make_plan(opts({"--launcher=ssh", "./a"}), slurm, kMachine, in_job)->launcher ==
        LauncherKind::Ssh);
  // The same hosts without SLURM_JOB_ID (a copied environment): ssh, and srun is refused.
  CHECK(make_plan(opts({"./a"}), slurm, kMachine, env)->launcher == LauncherKind::Ssh);
  CHECK(make_plan(opts({"--launcher=srun", "./a"}), slurm, kMachine, env).error().kind ==
        ErrorKind::BadOption);
  // -H inside an allocation keeps ssh: the user named other hosts.
  const HostList named{{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}}, "-H"};
  CHECK(make_plan(opts({"./a"}), named, kMachine, in_job)->launcher == LauncherKind::Ssh);
}

// A launcher that cannot start this plan is refused as every plan refused as a whole:
// bad-option (exit 64), naming the program.
TEST_CASE("--launcher=ssh without hosts, --launcher=srun outside an allocation: refused") {
  const EnvLookup in_job = [](const std::string& name) -> std::optional<std::string> {
    if (name == "SLURM_JOB_ID") return std::string("42");
    return std::nullopt;
  };
  const HostList slurm{{{.name = "n1", .slots = 2}}, "slurm n1"};
  const struct {
    std::string launcher;
    HostList hosts;
    EnvLookup getenv;
    std::string detail;
  } cases[] = {
      {"--launcher=ssh", HostList{}, env, "--launcher=ssh needs hosts: give -H or --hostfile"},
      {"--launcher=srun", slurm, env,
       "--launcher=srun needs a Slurm allocation (SLURM_JOB_ID is not set): run inside salloc "
       "or sbatch, or choose --launcher=ssh|local"},
      {"--launcher=srun", HostList{}, in_job,
       "--launcher=srun needs the allocation's nodes: SLURM_JOB_NODELIST is not set, or give -H "
       "or --hostfile"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.detail);
    const auto plan = make_plan(opts({c.launcher, "./a", "x"}), c.hosts, kMachine, c.getenv);
    REQUIRE_FALSE(plan.has_value());
    CHECK(plan.error().kind == ErrorKind::BadOption);
    CHECK(plan.error().detail == c.detail);
    CHECK(plan.error().executable == "./a");
    CHECK(exit_codes::for_error(plan.error()) == 64);
  }
}

// The plan's placement refusals name the program too: --cpus-per-proc's value, a mapper not
// here yet, a placement the options ask for but cannot be (values the options check first).
TEST_CASE("placement refusals of the plan: bad-option naming the program") {
  const struct {
    std::vector<std::string> args;
    std::string detail;
  } cases[] = {
      {{"--cpus-per-proc", "0"}, "--cpus-per-proc 0: give a number of CPUs, 1 or more"},
      {{"--mca", "rmaps", "mindist"},
       "--mca rmaps mindist: mpilaunch does not have this mapper yet; use --map-by (slot, node, "
       "an object, ppr:N:OBJ)"},
      {{"--mca", "rmaps_base_mapping_policy", "sideways"}, "--map-by sideways: unknown policy"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.detail);
    std::vector<std::string> args{"--launcher=local"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back("./a");
    const auto plan = make_plan(opts(args), HostList{}, kMachine, env);
    REQUIRE_FALSE(plan.has_value());
    CHECK(plan.error().kind == ErrorKind::BadOption);
    CHECK_MESSAGE(plan.error().detail.starts_with(c.detail), plan.error().detail);
    CHECK(plan.error().executable == "./a");
    CHECK(exit_codes::for_error(plan.error()) == 64);
  }
}

// MPI_UNIVERSE_SIZE under mpirun 4.1.4 is every allocated slot, used by ranks or not.
TEST_CASE("the universe is every host's slots, whatever -n asks") {
  const HostList hosts{{{.name = "n1", .slots = 17}, {.name = "n2", .slots = 3}}, "-H"};
  const auto plan = make_plan(opts({"-n", "2", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->map.node_count() == 1);
  CHECK(plan->universe_size == 20);
  CHECK(make_plan(opts({"-n", "6", "--oversubscribe", "./a"}), HostList{}, kMachine, env)
            ->universe_size == 4);
}

// mpirun 4.1.4 starts a daemon on every host of the allocation (measured) and places spawned
// processes on their free slots: hosts left without ranks get an agent, after the map's nodes.
TEST_CASE("hosts without ranks keep an agent, after the map's nodes, for spawns") {
  const HostList hosts{{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}, {.name = "n3"}},
                       "-H n1:2,n2:2,n3"};
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> map_nodes, agents;
  };
  const Case cases[] = {
      {{"-n", "2", "./a"}, {"n1"}, {"n1", "n2", "n3"}},
      {{"-n", "3", "./a"}, {"n1", "n2"}, {"n1", "n2", "n3"}},
      {{"-n", "5", "./a"}, {"n1", "n2", "n3"}, {"n1", "n2", "n3"}},
      {{"--map-by", "node", "-n", "2", "./a"}, {"n1", "n2"}, {"n1", "n2", "n3"}},
  };
  for (const Case& c : cases) {
    INFO(c.args.size(), " ", c.args.front());
    const auto plan = make_plan(opts(c.args), hosts, kMachine, env);
    REQUIRE(plan.has_value());
    CHECK(plan->map.nodes() == c.map_nodes);
    std::vector<std::string> agents;
    for (const HostEntry& h : plan->nodes) agents.push_back(h.name);
    CHECK(agents == c.agents);
    CHECK(plan->universe_size == 5);
  }
  const auto plan = make_plan(opts({"-n", "2", "./a"}), hosts, kMachine, env);
  const std::string text = render_plan(plan.value(), "agent");
  CHECK(text.find("node 0 n1 (slots 2): ranks 0,1") != std::string::npos);
  CHECK(text.find("node 1 n2 (slots 2): no ranks, for spawned processes") != std::string::npos);
  CHECK(text.find("node 2 n3 (slots 1): no ranks, for spawned processes") != std::string::npos);
}

// rmaps_base_oversubscribe and rmaps_base_mapping_policy with several contexts, as mpirun
// 4.1.4 has them (measured on 2 slots with 3 ranks; the options alone in options_grammar_test).
TEST_CASE("oversubscription from MCA parameters across MPMD contexts") {
  const HostList hosts{{{.name = "localhost", .slots = 2}}, "-H localhost:2"};
  const auto no_env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  const auto policy_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "OMPI_MCA_rmaps_base_mapping_policy") return std::string("core");
    return std::nullopt;
  };
  struct Row {
    std::vector<std::string> args;
    bool environment_policy;
    bool runs;
  };
  using W = std::vector<std::string>;
  const W tail = {"-n", "1", "./a", ":", "-n", "1", "./b", ":", "-n", "1"};
  auto with = [&](W head, W last) {
    W args = std::move(head);
    args.insert(args.end(), tail.begin(), tail.end());
    args.insert(args.end(), last.begin(), last.end());
    args.push_back("./c");
    return args;
  };
  const W mca_yes = {"--mca", "rmaps_base_oversubscribe", "1"};
  const W mca_core = {"--mca", "rmaps_base_mapping_policy", "core"};
  const Row rows[] = {
      // The parameter yields to the last context's :NOOVERSUBSCRIBE (unlike --oversubscribe).
      {with(mca_yes, {"--map-by", "core:NOOVERSUBSCRIBE"}), false, false},
      {with(mca_yes, {"--map-by", "core"}), false, true},
      {with(mca_yes, {"--nooversubscribe"}), false, true},
      // A mapping policy given as a parameter decides alone like a first --map-by.
      {with(mca_core, {"--oversubscribe"}), false, false},
      {with({}, {"--oversubscribe"}), true, false},
      {with({}, {"--oversubscribe", "--map-by", "core"}), true, true},
      {with({}, {"--oversubscribe"}), false, true},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args);
    const auto plan =
        make_plan(opts(row.args), hosts, kMachine, row.environment_policy ? +policy_env : +no_env);
    CHECK(plan.has_value() == row.runs);
  }
  // The parameter's :NOOVERSUBSCRIBE with --oversubscribe: refused as the pair is.
  const auto plan = make_plan(opts({"--oversubscribe", "--mca", "rmaps_base_mapping_policy",
                                    "slot:NOOVERSUBSCRIBE", "-n", "2", "./a"}),
                              hosts, kMachine, no_env);
  REQUIRE_FALSE(plan.has_value());
  CHECK(plan.error().detail.find("conflicting directives") != std::string::npos);
}

// mpirun honours its own MCA parameters from the environment and --mca; options win.
TEST_CASE("placement from mpirun's MCA parameters; the command line wins") {
  const auto mca_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "OMPI_MCA_hwloc_base_binding_policy") return std::string("none");
    if (name == "OMPI_MCA_rmaps_base_oversubscribe") return std::string("1");
    if (name == "OMPI_MCA_hwloc_base_report_bindings") return std::string("true");
    return std::nullopt;
  };
  auto plan = make_plan(opts({"-n", "9", "./a"}), HostList{}, kMachine, mca_env);
  REQUIRE(plan.has_value());
  CHECK(plan->placement.bind_none);
  CHECK(plan->placement.report_bindings);
  CHECK(plan->map.size() == 9);  // oversubscribed, as OMPI_MCA_rmaps_base_oversubscribe says
  plan = make_plan(opts({"--bind-to", "core", "./a"}), HostList{}, kMachine, mca_env);
  CHECK(plan->placement.bind_level == HwLevel::Core);
  plan = make_plan(opts({"--mca", "hwloc_base_binding_policy", "socket", "./a"}), HostList{},
                   kMachine, mca_env);
  CHECK(plan->placement.bind_level == HwLevel::Socket);
  // ppr:N:node is N per node; --map-by ...:NOOVERSUBSCRIBE overrides the environment.
  const HostList hosts{{{.name = "n1", .slots = 1}, {.name = "n2", .slots = 1}}, "-H"};
  plan = make_plan(opts({"--map-by", "ppr:2:node", "./a"}), hosts, kMachine, mca_env);
  REQUIRE(plan.has_value());
  CHECK(plan->map.size() == 4);
  CHECK(make_plan(opts({"-n", "9", "--map-by", "slot:NOOVERSUBSCRIBE", "./a"}), HostList{},
                  kMachine, mca_env)
            .error()
            .kind == ErrorKind::NotEnoughSlots);
  CHECK(make_plan(opts({"--mca", "rmaps", "nosuch", "./a"}), HostList{}, kMachine, env)
            .error()
            .kind == ErrorKind::BadOption);
}

TEST_CASE("mpmd: contexts are mapped in turn, ranks numbered context by context") {
  const HostList hosts{{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}}, "-H"};
  const auto plan = make_plan(opts({"--launcher=local", "-n", "1", "-x", "A=1", "./a", ":", "-n",
                                    "3", "--wdir", "/w", "./b", "x"}),
                              hosts, kMachine, env);
  REQUIRE(plan.has_value());
  REQUIRE(plan->apps.size() == 2);
  CHECK(plan->apps[0].num_procs == 1);
  CHECK(plan->apps[0].argv == std::vector<std::string>{"./a"});
  CHECK(plan->apps[0].env == std::vector<std::string>{"A=1"});
  CHECK(plan->apps[0].wdir == "/home/u");
  CHECK(plan->apps[1].num_procs == 3);
  CHECK(plan->apps[1].argv == std::vector<std::string>{"./b", "x"});
  CHECK(plan->apps[1].env.empty());
  CHECK(plan->apps[1].wdir == "/w");
  // By slot: rank 0 (a) and rank 1 (b) fill n1, ranks 2-3 (b) go to n2.
  REQUIRE(plan->map.size() == 4);
  CHECK(plan->map.ranks_on(0) == std::vector<int>{0, 1});
  CHECK(plan->map.ranks_on(1) == std::vector<int>{2, 3});
  CHECK(&app_of_rank(*plan, 0) == &plan->apps[0]);
  CHECK(&app_of_rank(*plan, 3) == &plan->apps[1]);
  CHECK(app_index_of_rank(*plan, 0) == 0);
  CHECK(app_index_of_rank(*plan, 1) == 1);
  CHECK(app_index_of_rank(*plan, 3) == 1);
  CHECK(app_index_of_rank(*plan, -1) == 0);
  const std::string text = render_plan(*plan, "agent");
  CHECK(text.find("context 0:  ranks 0-0: ./a") != std::string::npos);
  CHECK(text.find("context 1:  ranks 1-3: ./b x") != std::string::npos);
}

TEST_CASE("--path: searched by the agent; OMPI_exec_path only for the context that gave it") {
  const auto plan = make_plan(opts({"-n", "1", "--path", "bin:/opt/b", "a", ":", "-n", "1", "b"}),
                              HostList{}, kMachine, env);
  REQUIRE(plan.has_value());
  REQUIRE(plan->apps.size() == 2);
  CHECK(plan->apps[0].exec_path == "bin:/opt/b");
  CHECK(plan->apps[0].env == std::vector<std::string>{"OMPI_exec_path=bin:/opt/b"});
  CHECK(plan->apps[1].exec_path == "bin:/opt/b");
  CHECK(plan->apps[1].env.empty());
  CHECK(render_plan(*plan, "agent").find("  path:     bin:/opt/b") != std::string::npos);
  const auto one = make_plan(opts({"-path", "x", "a"}), HostList{}, kMachine, env);
  REQUIRE(one.has_value());
  CHECK(render_plan(*one, "agent").find("path:       x\n") != std::string::npos);
}

TEST_CASE("mpmd: a context's -H keeps it on those hosts; node order stays host order") {
  const HostList hosts{{{.name = "n1", .slots = 1}, {.name = "n2", .slots = 1}}, "-H"};
  const auto plan = make_plan(
      opts({"--launcher=local", "-n", "1", "-H", "n2", "./a", ":", "-n", "1", "-H", "n1", "./b"}),
      hosts, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->map.node_name(plan->map.node_of(0)) == "n2");
  CHECK(plan->map.node_name(plan->map.node_of(1)) == "n1");
  const auto nowhere =
      make_plan(opts({"--launcher=local", "-n", "1", "./a", ":", "-n", "1", "-H", "n9", "./b"}),
                hosts, kMachine, env);
  REQUIRE_FALSE(nowhere.has_value());
  CHECK(nowhere.error().detail.find("application context 2") != std::string::npos);
}

TEST_CASE("mpmd: slots are shared by the contexts; without -n a context asks every slot") {
  const HostList hosts{{{.name = "n1", .slots = 2}}, "-H"};
  auto full = make_plan(opts({"--launcher=local", "-n", "1", "./a", ":", "-n", "2", "./b"}), hosts,
                        kMachine, env);
  REQUIRE_FALSE(full.has_value());
  CHECK(full.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(full.error().executable == "./b");
  auto rest =
      make_plan(opts({"--launcher=local", "-n", "1", "./a", ":", "./b"}), hosts, kMachine, env);
  REQUIRE_FALSE(rest.has_value());  // ./b asks for both slots, as under mpirun
  auto over = make_plan(
      opts({"--launcher=local", "--oversubscribe", "-n", "1", "./a", ":", "-n", "2", "./b"}), hosts,
      kMachine, env);
  REQUIRE(over.has_value());
  CHECK(over->map.size() == 3);
}

TEST_CASE("host file lines without slots=: every host gets an agent, ranks wait for its cores") {
  const HostList hosts{{{.name = "n1", .count_cores = true},
                        {.name = "n2", .slots = 1, .slots_given = true},
                        {.name = "n3", .count_cores = true}},
                       "hostfile hf"};
  struct Case {
    std::vector<std::string> args;
    std::vector<int> cores;
    int np;
    std::vector<std::string> nodes;  // hosts with ranks, in order
    int universe;
  };
  const Case cases[] = {
      {{"-n", "4", "./a"}, {2, 2, 2}, 4, {"n1", "n2", "n3"}, 5},
      {{"-n", "2", "./a"}, {2, 2, 2}, 2, {"n1"}, 5},  // the first host's cores fill first
      {{"-n", "3", "./a"}, {2, 2, 2}, 3, {"n1", "n2"}, 5},
      {{"./a"}, {4, 1, 8}, 13, {"n1", "n2", "n3"}, 13},  // without -n, every slot
      {{"--map-by", "node", "-n", "2", "./a"}, {2, 2, 2}, 2, {"n1", "n2"}, 5},
      {{"-N", "1", "./a"}, {2, 2, 2}, 3, {"n1", "n2", "n3"}, 5},
      {{"-n", "6", "--oversubscribe", "./a"}, {1, 1, 1}, 6, {"n1", "n2", "n3"}, 3},
  };
  for (const Case& c : cases) {
    INFO(c.args.front(), " ", c.args.size());
    auto plan = make_plan(opts(c.args), hosts, kMachine, env);
    REQUIRE(plan.has_value());
    CHECK(plan->slots_from_agents);
    CHECK(plan->nodes.size() == 3);
    CHECK(plan->map.node_count() == 3);
    CHECK(plan->map.size() == 0);
    CHECK(plan->apps.at(0).num_procs == 0);
    REQUIRE(map_on_reported_slots(plan.value(), c.cores));
    CHECK_FALSE(plan->slots_from_agents);
    CHECK(plan->map.size() == c.np);
    REQUIRE(plan->apps.size() == 1);
    CHECK(plan->apps[0].num_procs == c.np);
    CHECK(plan->map.nodes() == c.nodes);
    // Every host keeps its agent: the map's first, then those without ranks (for spawns).
    REQUIRE(plan->nodes.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) CHECK(plan->nodes[i].name == hosts.hosts[i].name);
    CHECK(plan->nodes.front().slots == c.cores.front());
    CHECK(plan->universe_size == c.universe);
  }
}

TEST_CASE("slots counted by the agents: too few is the usual not-enough-slots error") {
  const HostList hosts{{{.name = "n1", .count_cores = true}, {.name = "n2", .count_cores = true}},
                       "hostfile hf"};
  auto plan = make_plan(opts({"-n", "5", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  const Status st = map_on_reported_slots(plan.value(), {2, 2});
  REQUIRE_FALSE(st);
  CHECK(st.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(st.error().executable == "./a");
  auto wrong = make_plan(opts({"./a"}), hosts, kMachine, env);
  CHECK_FALSE(map_on_reported_slots(wrong.value(), {2}));  // one count per host
  // Slots given everywhere: mapped at once, nothing to wait for.
  const HostList given{{{.name = "n1", .slots = 2, .slots_given = true}}, "hostfile hf"};
  auto now = make_plan(opts({"./a"}), given, kMachine, env);
  CHECK_FALSE(now->slots_from_agents);
  CHECK(now->map.size() == 2);
  const std::string text = render_plan(plan.value(), "agent");
  CHECK(text.find("placed once each agent has counted its node's cores") != std::string::npos);
  CHECK(text.find("node 1 n2 (slots: its cores)") != std::string::npos);
}

// mpirun 4.1.4 (measured on virtual nodes): ppr is job-wide, wherever given, but N per node counts
// each context's own ranks, over the hosts the contexts before left a free slot.
TEST_CASE("mpmd: ppr places each context N per node over the hosts with a free slot") {
  const HostList ab22{{{.name = "a", .slots = 2}, {.name = "b", .slots = 2}}, "-H"};
  const auto where = [](const LaunchPlan& plan) {
    std::vector<int> out;
    for (int r = 0; r < plan.map.size(); ++r) out.push_back(plan.map.node_of(r));
    return out;
  };
  struct Row {
    std::vector<std::string> args;
    std::vector<int> nodes;  // empty: refused
    ErrorKind kind = ErrorKind::Unknown;
    std::string refused = "./b";  // the context refused
  };
  const std::vector<Row> rows = {
      {{"-n", "2", "./a", ":", "-n", "2", "--npernode", "1", "./b"}, {0, 1, 0, 1}},
      {{"-n", "2", "./a", ":", "-n", "1", "--npernode", "1", "./b"}, {0, 1, 0}},
      // ./a fills a; ./b's one per node goes to b, the only host with a free slot.
      {{"-n", "3", "./a", ":", "-n", "1", "--npernode", "2", "./b"}, {0, 0, 1, 1}},
      {{"--npernode", "1", "-n", "1", "./a", ":", "-n", "2", "./b"}, {0, 0, 1}},
      {{"-n", "1", "./a", ":", "-n", "2", "--map-by", "ppr:1:node", "./b"}, {0, 0, 1}},
      // --npernode holds for ./a too: 3 is more than 1 per node on 2 hosts.
      {{"-n", "3", "./a", ":", "--npernode", "1", "./b"}, {}, ErrorKind::BadOption, "./a"},
      // ./b without -n: 2 per host it has, but only b has room, and only for 1 more.
      {{"-n", "3", "./a", ":", "--npernode", "2", "./b"}, {}, ErrorKind::NotEnoughSlots},
      {{"-n", "2", "./a", ":", "--npernode", "1", "./b"}, {0, 1, 0, 1}},
      {{"-n", "1", "./a", ":", "--map-by", "ppr:1:node", "./b"}, {0, 0, 1}},
  };
  for (const Row& row : rows) {
    std::vector<std::string> args = {"--launcher=local"};
    args.insert(args.end(), row.args.begin(), row.args.end());
    const std::string line = mpilaunch::format("{}", fmt::join(row.args, " "));
    CAPTURE(line);
    const auto plan = make_plan(opts(args), ab22, kMachine, env);
    if (row.nodes.empty()) {
      REQUIRE_FALSE(plan.has_value());
      CHECK(plan.error().kind == row.kind);
      CHECK(plan.error().executable == row.refused);
    } else {
      REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
      CHECK(where(*plan) == row.nodes);
    }
  }
  // Every host full: "all nodes which are allocated for this job are already filled".
  const HostList ab11{{{.name = "a", .slots = 1}, {.name = "b", .slots = 1}}, "-H"};
  const auto filled = make_plan(opts({"-n", "2", "./a", ":", "-n", "1", "--npernode", "1", "./b"}),
                                ab11, kMachine, env);
  REQUIRE_FALSE(filled.has_value());
  CHECK(filled.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(filled.error().detail.find("already filled") != std::string::npos);
  // ppr over an object waits for the agents' counts; each context needs -n.
  auto plan = make_plan(opts({"--npersocket", "1", "-n", "2", "./a", ":", "-n", "2", "./b"}), ab22,
                        kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->ppr_object == HwLevel::Socket);
  REQUIRE(map_on_reported_slots(*plan, {2, 2}, {1, 1}));
  CHECK(where(*plan) == std::vector<int>{0, 1, 0, 1});
  CHECK(plan->apps[0].num_procs == 2);
  CHECK(plan->apps[1].num_procs == 2);
  CHECK(app_index_of_rank(*plan, 2) == 1);
}

TEST_CASE("slots counted by the agents: several application contexts are refused by name") {
  const HostList hosts{
      {{.name = "n1", .slots = 2, .slots_given = true}, {.name = "n2", .count_cores = true}},
      "hostfile hf"};
  const auto mpmd =
      make_plan(opts({"-n", "1", "./a", ":", "-n", "1", "./b"}), hosts, kMachine, env);
  REQUIRE_FALSE(mpmd.has_value());
  CHECK(mpmd.error().kind == ErrorKind::BadOption);
  CHECK(mpmd.error().detail.find("several application contexts") != std::string::npos);
  CHECK(mpmd.error().detail.find("hostfile hf") != std::string::npos);
  CHECK(mpmd.error().detail.find("host n2 has no slots=") != std::string::npos);
  CHECK(mpmd.error().executable == "./a");
  // With slots= on every line, MPMD maps at once.
  const HostList given{{{.name = "n1", .slots = 2, .slots_given = true}}, "hostfile hf"};
  const auto fine =
      make_plan(opts({"-n", "1", "./a", ":", "-n", "1", "./b"}), given, kMachine, env);
  REQUIRE(fine.has_value());
  CHECK(fine->map.size() == 2);
}

TEST_CASE("-rf: each rank on its line's host, its slot kept for binding") {
  auto line = [](int rank, std::string host, std::string slot) {
    return RankfileLine{rank, std::move(host), parse_rank_slot(slot).value(), rank + 1};
  };
  HostList hosts{{{.name = "n2", .slots = 2, .slots_given = true},
                  {.name = "n1", .slots = 1, .slots_given = true}},
                 "rankfile rf",
                 {line(0, "n2", "1"), line(1, "n1", "0"), line(2, "n2", "0:0")},
                 "rf"};
  auto plan = make_plan(opts({"--launcher=local", "./a"}), hosts, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->map.size() == 3);  // without -n: every rank of the file
  CHECK(plan->map.nodes() == std::vector<std::string>{"n2", "n1"});
  CHECK(plan->map.node_of(0) == 0);
  CHECK(plan->map.node_of(1) == 1);
  CHECK(plan->map.node_of(2) == 0);
  REQUIRE(plan->placement.rankfile.size() == 3);
  CHECK(plan->placement.rankfile[2].socket == 0);
  CHECK(plan->universe_size == 3);
  // Every line is kept with its node, for spawned processes (spawn_placement.hpp).
  REQUIRE(plan->rankfile.size() == 3);
  CHECK(plan->rankfile[1].rank == 1);
  CHECK(plan->rankfile[1].node == 1);
  CHECK(plan->rankfile[1].host == "n1");
  CHECK(plan->rankfile[2].node == 0);
  CHECK(plan->rankfile_path == "rf");
  // -n 1: the lines past the job's ranks are kept too; n1 then runs no rank (-1).
  const auto one = make_plan(opts({"--launcher=local", "-n", "1", "./a"}), hosts, kMachine, env);
  REQUIRE(one.has_value());
  REQUIRE(one->rankfile.size() == 3);
  CHECK(one->rankfile[1].node == -1);
  CHECK(one->rankfile[2].node == 0);
  // -n 2 takes ranks 0 and 1; -n 4 needs a line for rank 3 (mpirun: "A rank is missing its
  // location specification").
  CHECK(make_plan(opts({"--launcher=local", "-n", "2", "./a"}), hosts, kMachine, env)->map.size() ==
        2);
  const auto missing =
      make_plan(opts({"--launcher=local", "-n", "4", "./a"}), hosts, kMachine, env);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind == ErrorKind::BadOption);
  CHECK(missing.error().detail.starts_with("--rankfile rf: rank 3 has no line"));
  // A host has a slot per line naming it, whatever its own slots (mpirun 4.1.4, measured in
  // session 9: -H localhost:1 with three lines runs 3 ranks without --oversubscribe, universe 3;
  // until then this was refused here as more ranks than n1's one slot).
  hosts.rankfile.push_back(line(3, "n1", "1"));
  const auto more = make_plan(opts({"--launcher=local", "./a"}), hosts, kMachine, env);
  REQUIRE_MESSAGE(more.has_value(), more.error().detail);
  CHECK(more->universe_size == 4);
  REQUIRE(more->nodes.size() == 2);
  CHECK(more->nodes[1].name == "n1");
  CHECK(more->nodes[1].slots == 2);
  // ... and -H n2:8 with its two lines: 2 slots, MPI_UNIVERSE_SIZE counts the lines.
  HostList wide = hosts;
  wide.hosts[0].slots = 8;
  CHECK(make_plan(opts({"--launcher=local", "./a"}), wide, kMachine, env)->universe_size == 4);
  // MPMD: the contexts' ranks follow one another through the file; each needs its -n.
  const auto mpmd = make_plan(
      opts({"--launcher=local", "--oversubscribe", "-n", "1", "./a", ":", "-n", "3", "./b"}), hosts,
      kMachine, env);
  REQUIRE_MESSAGE(mpmd.has_value(), mpmd.error().detail);
  CHECK(mpmd->map.size() == 4);
  REQUIRE(mpmd->apps.size() == 2);
  CHECK(mpmd->apps[0].num_procs == 1);
  CHECK(mpmd->apps[1].num_procs == 3);
  const auto no_n =
      make_plan(opts({"--launcher=local", "-n", "1", "./a", ":", "./b"}), hosts, kMachine, env);
  REQUIRE_FALSE(no_n.has_value());
  CHECK(no_n.error().detail.find("context 2 needs -n") != std::string::npos);
}

// Options that each place every rank are refused by name, as every plan refused as a whole:
// bad-option (exit 64), naming the program.
TEST_CASE("a rankfile or seq with --cpu-list, with each other or with --nolocal: refused") {
  const RankfileLine line{0, "n1", parse_rank_slot("0").value(), 1};
  const HostList rankfile{
      {{.name = "n1", .slots = 2, .slots_given = true}}, "rankfile rf", {line}, "rf"};
  HostList lines{{{.name = "n1", .slots = 2, .slots_given = true}}, "hostfile hf"};
  lines.host_lines = {"n1", "n1"};
  const struct {
    std::vector<std::string> args;
    const HostList& hosts;
    std::string detail;
  } cases[] = {
      {{"--cpu-list", "0,1", "./a"},
       rankfile,
       "--cpu-list 0,1 and --rankfile each place every rank; give one of them"},
      {{"--cpu-list", "1", "--mca", "rmaps", "seq", "-n", "2", "./a"},
       lines,
       "--cpu-list 1 and --map-by seq (or --mca rmaps seq) each place every rank; give one of "
       "them"},
      {{"--map-by", "seq", "./a"},
       rankfile,
       "--rankfile and --map-by seq (or --mca rmaps seq) each place every rank; give one of them"},
      {{"--nolocal", "./a"},
       rankfile,
       "--nolocal with --rankfile: not supported (the lines place every rank; leave this machine "
       "out of them instead)"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"--launcher=local"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto plan = make_plan(opts(args), c.hosts, kMachine, env);
    REQUIRE_FALSE(plan.has_value());
    CHECK(plan.error().kind == ErrorKind::BadOption);
    CHECK(plan.error().detail == c.detail);
    CHECK(plan.error().executable == "./a");
    CHECK(exit_codes::for_error(plan.error()) == 64);
  }
  // cpu-list:ordered walks the list within each rank's slot instead: no conflict.
  CHECK(make_plan(
            opts({"--launcher=local", "--cpu-list", "0", "--bind-to", "cpu-list:ordered", "./a"}),
            rankfile, kMachine, env)
            .has_value());
}

// mpirun 4.1.4 (docs/placement.md): one rank per line in line order; without -n every slot;
// more ranks than lines refused; --mca rmaps seq unbound, --map-by seq bound as by default.
TEST_CASE("seq: rank i on the host of the i-th line") {
  HostList hosts{{{.name = "n2", .slots = 2}, {.name = "n1", .slots = 1, .count_cores = true}},
                 "hostfile hf"};
  hosts.host_lines = {"n2", "n1", "n2"};
  auto plan = make_plan(opts({"--launcher=local", "--map-by", "seq", "-n", "3", "./a"}), hosts,
                        kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->map.nodes() == std::vector<std::string>{"n2", "n1"});
  CHECK(plan->map.node_of(0) == 0);
  CHECK(plan->map.node_of(1) == 1);
  CHECK(plan->map.node_of(2) == 0);
  CHECK(plan->placement.seq);
  CHECK_FALSE(plan->placement.bind_none);
  CHECK(plan->placement.rankfile.empty());
  REQUIRE(plan->apps.size() == 1);
  CHECK(plan->apps[0].num_procs == 3);
  const auto mca = make_plan(opts({"--launcher=local", "--mca", "rmaps", "seq", "-n", "2", "./a"}),
                             hosts, kMachine, env);
  REQUIRE(mca.has_value());
  CHECK(mca->map.size() == 2);
  CHECK(mca->placement.bind_none);
  // More ranks than lines, even with --oversubscribe.
  const auto four =
      make_plan(opts({"--launcher=local", "--map-by", "seq", "--oversubscribe", "-n", "4", "./a"}),
                hosts, kMachine, env);
  REQUIRE_FALSE(four.has_value());
  CHECK(four.error().kind == ErrorKind::BadOption);
  CHECK(four.error().detail.find("4 processes but 3 host lines") != std::string::npos);
  // Without -n: every slot, unknown while a line without slots= counts its node's cores.
  const auto all =
      make_plan(opts({"--launcher=local", "--map-by", "seq", "./a"}), hosts, kMachine, env);
  REQUIRE_FALSE(all.has_value());
  CHECK(all.error().detail.find("n1's slots are its cores") != std::string::npos);
  hosts.hosts[1].count_cores = false;
  const auto every =
      make_plan(opts({"--launcher=local", "--map-by", "seq", "./a"}), hosts, kMachine, env);
  REQUIRE_MESSAGE(every.has_value(), every.error().detail);
  CHECK(every->map.size() == 3);
  // No order to follow: the hosts of an allocation, or this machine alone.
  const auto none =
      make_plan(opts({"--map-by", "seq", "-n", "1", "./a"}), HostList{}, kMachine, env);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().detail.find("gives no such order") != std::string::npos);
}

// mpirun 4.1.4's --display-allocation block (measured): every host given, this machine under its
// short name with flags 0x11, others 0x13; a host file's hosts UNKNOWN, others UP.
TEST_CASE("--display-allocation: mpirun's ALLOCATED NODES block, every host, counted slots") {
  const std::string head = "\n======================   ALLOCATED NODES   ======================\n";
  const std::string rule = "=================================================================\n";
  const MachineFacts machine{"box.example.org", 2, "/w"};
  auto plan = make_plan(opts({"--display-allocation", "./a"}), HostList{}, machine, env);
  REQUIRE(plan);
  CHECK(plan->display_allocation);
  CHECK(allocation_text(*plan) ==
        head + "\tbox: flags=0x11 slots=2 max_slots=0 slots_inuse=0 state=UP\n" + rule);
  const HostList given{{{.name = "a", .slots = 2, .slots_given = true},
                        {.name = "b", .slots = 3, .slots_given = true}},
                       "-H"};
  plan = make_plan(opts({"-n", "1", "./a"}), given, machine, env);
  REQUIRE(plan);
  CHECK_FALSE(plan->display_allocation);
  CHECK(allocation_text(*plan) ==
        head +
            "\ta: flags=0x13 slots=2 max_slots=0 slots_inuse=0 state=UP\n"
            "\tb: flags=0x13 slots=3 max_slots=0 slots_inuse=0 state=UP\n" +
            rule);
  const HostList file{{{.name = "localhost", .slots = 2, .slots_given = true},
                       {.name = "a", .slots = 1, .count_cores = true},
                       {.name = "b", .slots = 4, .slots_given = true, .max_slots = 6}},
                      "hostfile hf"};
  plan = make_plan(opts({"-n", "2", "./a"}), file, machine, [](const std::string& name) {
    return name == "OMPI_MCA_orte_display_alloc" ? std::optional<std::string>("1") : std::nullopt;
  });
  REQUIRE(plan);
  CHECK(plan->display_allocation);
  REQUIRE(map_on_reported_slots(*plan, {2, 8, 4}));
  CHECK(allocation_text(*plan) ==
        head +
            "\tbox: flags=0x11 slots=2 max_slots=0 slots_inuse=0 state=UP\n"
            "\ta: flags=0x13 slots=8 max_slots=0 slots_inuse=0 state=UNKNOWN\n"
            "\tb: flags=0x13 slots=4 max_slots=6 slots_inuse=0 state=UNKNOWN\n" +
            rule);
}

// mpirun 4.1.4 (measured): --nolocal maps no rank on this machine, whose slots still count in
// the universe and the allocation; with no other host it refuses.
TEST_CASE("--nolocal: no rank here, this machine's slots in the universe") {
  const HostList given{{{.name = "localhost", .slots = 2, .slots_given = true},
                        {.name = "a", .slots = 2, .slots_given = true},
                        {.name = "b", .slots = 1, .slots_given = true}},
                       "-H"};
  auto plan = make_plan(opts({"--nolocal", "-n", "3", "./a"}), given, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->map.nodes() == std::vector<std::string>{"a", "b"});
  CHECK(plan->universe_size == 5);
  CHECK(plan->allocation.size() == 3);
  CHECK(plan->launcher == LauncherKind::Ssh);
  // This machine keeps an agent, the last, for spawned children (mpirun 4.1.4 puts them there).
  CHECK(plan->idle_local_node);
  REQUIRE(plan->nodes.size() == 3);
  CHECK(plan->nodes.back().name == "localhost");
  CHECK(plan->nodes.back().slots == 2);
  // Without -n mpirun asks for every slot of the allocation, this machine's too: 5 on 3.
  const auto all = make_plan(opts({"-nolocal", "./a"}), given, kMachine, env);
  REQUIRE_FALSE(all.has_value());
  CHECK(all.error().kind == ErrorKind::NotEnoughSlots);
  plan = make_plan(opts({"-nolocal", "--oversubscribe", "./a"}), given, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->map.size() == 5);
  CHECK(plan->map.nodes() == std::vector<std::string>{"a", "b"});
  // The MCA parameter asks for it too.
  plan = make_plan(opts({"--mca", "rmaps_base_no_schedule_local", "1", "-n", "2", "./a"}), given,
                   kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->map.nodes() == std::vector<std::string>{"a"});
  // This machine alone (isolated, or only local names): nothing can run.
  for (const HostList& alone :
       {HostList{}, HostList{{{.name = "box", .slots = 2, .slots_given = true}}, "-H"}}) {
    const auto none = make_plan(opts({"--nolocal", "-n", "1", "./a"}), alone, kMachine, env);
    REQUIRE_FALSE(none.has_value());
    CHECK(none.error().kind == ErrorKind::NotEnoughSlots);
    CHECK(none.error().detail.find("already filled") != std::string::npos);
    CHECK(none.error().executable == "./a");
  }
  // A host file's local line without slots= counts this machine's cores (4), known here; the
  // other host's are counted by its agent.
  const HostList file{{{.name = "localhost", .slots = 1, .count_cores = true},
                       {.name = "a", .slots = 1, .count_cores = true}},
                      "hostfile hf"};
  plan = make_plan(opts({"--nolocal", "-n", "2", "./a"}), file, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->slots_from_agents);
  // Host a, then this machine's idle agent (its slots known here: no rank ever goes there).
  REQUIRE(plan->nodes.size() == 2);
  CHECK(plan->nodes.back().name == "localhost");
  REQUIRE(map_on_reported_slots(*plan, {8, 1}));
  CHECK(plan->map.nodes() == std::vector<std::string>{"a"});
  REQUIRE(plan->nodes.size() == 2);
  CHECK(plan->nodes.back().slots == 4);
  CHECK(plan->universe_size == 12);
  REQUIRE(plan->allocation.size() == 2);
  CHECK(plan->allocation[0].slots == 4);
  CHECK(plan->allocation[1].slots == 8);
  // -n beyond a's slots: no rank goes to this machine's agent, with --oversubscribe too.
  plan = make_plan(opts({"--nolocal", "--oversubscribe", "-n", "10", "./a"}), file, kMachine, env);
  REQUIRE(plan.has_value());
  REQUIRE(map_on_reported_slots(*plan, {8, 1}));
  CHECK(plan->map.nodes() == std::vector<std::string>{"a"});
  CHECK(plan->map.size() == 10);
  // Without -n, once counted: 4 + 8 slots asked for, 8 where ranks may run.
  plan = make_plan(opts({"--nolocal", "./a"}), file, kMachine, env);
  REQUIRE(plan.has_value());
  const Status short_of_slots = map_on_reported_slots(*plan, {8, 1});
  REQUIRE_FALSE(short_of_slots);
  CHECK(short_of_slots.error().kind == ErrorKind::NotEnoughSlots);
  // The lines of seq or a rankfile place every rank: refused by name with --nolocal.
  HostList seq = given;
  seq.host_lines = {"a", "b"};
  const auto seq_plan =
      make_plan(opts({"--nolocal", "--map-by", "seq", "-n", "2", "./a"}), seq, kMachine, env);
  REQUIRE_FALSE(seq_plan.has_value());
  CHECK(seq_plan.error().detail.find("--nolocal with --map-by seq") != std::string::npos);
}

// mpirun 4.1.4 (measured): --am and --tune name their files to the ranks; a --tune file's
// --mca steers the launcher (after --mca and OMPI_MCA_*) but is no variable of the ranks.
TEST_CASE("--am, --tune: the ranks get the file names; the tune file's --mca steers the map") {
  Options o = opts({"--am", "p.conf", "--tune", "t.conf", "-n", "6", "./a"});
  o.tune_mca = {{"rmaps_base_oversubscribe", "1"}, {"btl", "self"}, {"pml", "ucx"}};
  const auto plan = make_plan(o, HostList{}, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->map.size() == 6);  // 4 CPUs, oversubscribed as the file asks
  // pml as a variable: mpilaunch's own transport default would win over the file otherwise.
  CHECK(plan->env == std::vector<std::string>{"OMPI_MCA_mca_base_param_file_prefix=p.conf",
                                              "OMPI_MCA_mca_base_envar_file_prefix=t.conf",
                                              "OMPI_MCA_pml=ucx"});
  // The environment's OMPI_MCA_* wins over the file.
  const auto no = make_plan(o, HostList{}, kMachine, [](const std::string& name) {
    return name == "OMPI_MCA_rmaps_base_oversubscribe" ? std::optional<std::string>("0")
                                                       : std::nullopt;
  });
  REQUIRE_FALSE(no.has_value());
  CHECK(no.error().kind == ErrorKind::NotEnoughSlots);
}

TEST_CASE("options' MCA parameters reach the ranks and win over --mca of the same name") {
  const auto plan = make_plan(opts({"--mca", "hwloc_base_binding_policy", "none", "--mca", "btl",
                                    "self", "--bind-to", "core", "--map-by", "slot", "./a"}),
                              HostList{}, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->env == std::vector<std::string>{"OMPI_MCA_btl=self",
                                              "OMPI_MCA_hwloc_base_binding_policy=core",
                                              "OMPI_MCA_rmaps_base_mapping_policy=slot"});
}

// --ppr X is mpirun 4.1.4's old spelling of --map-by ppr:X: checked here only, and named as given.
TEST_CASE("--ppr: maps as --map-by ppr:X; a bad value or --map-by too refused naming --ppr") {
  const HostList hosts{{{.name = "n1", .slots = 4}, {.name = "n2", .slots = 4}}, "-H"};
  const auto plan =
      make_plan(opts({"--launcher=local", "--ppr", "2:node", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->map.size() == 4);
  CHECK(plan->map.node_of(1) == 0);
  CHECK(plan->map.node_of(2) == 1);
  CHECK(plan->warnings.empty());  // mpirun's own deprecation block instead (deprecation.hpp)
  const struct {
    std::vector<std::string> args;
    std::string detail;
  } refused[] = {
      {{"--ppr", "x:node"}, "--ppr x:node: --map-by ppr:x:node: 'x' is not a count of processes"},
      {{"--ppr", "2"},
       "--ppr 2: --map-by ppr:2: ppr needs a count and an object, e.g. ppr:2:socket"},
      {{"--ppr", "-1:node"},
       "--ppr -1:node: --map-by ppr:-1:node: '-1' is not a count of processes"},
      {{"--ppr", "1:node", "--map-by", "core"},
       "--ppr 1:node and --map-by core: give one (--ppr is the old spelling of --map-by "
       "ppr:1:node; mpirun 4.1.4 refuses both)"},
  };
  for (const auto& c : refused) {
    CAPTURE(c.detail);
    std::vector<std::string> args{"--launcher=local"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back("./a");
    const auto bad = make_plan(opts(args), hosts, kMachine, env);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == ErrorKind::BadOption);
    CHECK(bad.error().detail == c.detail);
    CHECK(bad.error().executable == "./a");
    CHECK(exit_codes::for_error(bad.error()) == 64);
  }
}

// mpirun 4.1.4 (measured): ppr:N:socket without -n starts N per socket on every node, known once
// each agent has reported its sockets; beyond a node's slots only with --oversubscribe.
TEST_CASE("ppr:N:socket without -n: N per socket of every node, once the agents report") {
  const HostList hosts{{{.name = "a", .slots = 4, .slots_given = true},
                        {.name = "b", .slots = 8, .slots_given = true}},
                       "-H"};
  auto plan = make_plan(opts({"--npersocket", "2", "./a"}), hosts, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->ppr_object == HwLevel::Socket);
  CHECK(plan->request.per_node == 2);
  CHECK(plan->slots_from_agents);
  REQUIRE(map_on_reported_slots(*plan, {4, 8}, {1, 2}));
  CHECK(plan->map.size() == 6);
  CHECK(plan->map.ranks_on(0) == std::vector<int>{0, 1});
  CHECK(plan->map.ranks_on(1) == std::vector<int>{2, 3, 4, 5});
  CHECK(plan->apps[0].num_procs == 6);
  CHECK(plan->universe_size == 12);
  // 5 per socket is more than a's 4 slots: refused, unless --oversubscribe.
  plan = make_plan(opts({"--map-by", "ppr:5:socket", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  const Status short_of_slots = map_on_reported_slots(*plan, {4, 8}, {1, 1});
  REQUIRE_FALSE(short_of_slots);
  CHECK(short_of_slots.error().kind == ErrorKind::NotEnoughSlots);
  plan =
      make_plan(opts({"--map-by", "ppr:5:socket", "--oversubscribe", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  REQUIRE(map_on_reported_slots(*plan, {4, 8}, {1, 1}));
  CHECK(plan->map.size() == 10);
  // On one host with -n the job is mapped at once (each node's objects are checked when its
  // agent reports, common/placement.hpp); on several, N per socket of each node.
  const HostList one{{{.name = "a", .slots = 4, .slots_given = true}}, "-H"};
  plan = make_plan(opts({"--npersocket", "1", "-n", "1", "./a"}), one, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK_FALSE(plan->slots_from_agents);
  CHECK_FALSE(plan->ppr_object);
  plan = make_plan(opts({"--npersocket", "1", "-n", "2", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->ppr_object == HwLevel::Socket);
  REQUIRE(map_on_reported_slots(*plan, {4, 8}, {1, 1}));
  CHECK(plan->map.ranks_on(0) == std::vector<int>{0});
  CHECK(plan->map.ranks_on(1) == std::vector<int>{1});
  CHECK(plan->apps[0].num_procs == 2);
  // Below the socket, without -n every slot is asked for: 1 per core fills a's 4 and b's 8.
  plan = make_plan(opts({"--map-by", "ppr:1:core", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->ppr_object == HwLevel::Core);
  REQUIRE(map_on_reported_slots(*plan, {4, 8}, {4, 8}));
  CHECK(plan->map.size() == 12);
  // ... and more than N per object of every node is refused, as mpirun refuses it.
  plan = make_plan(opts({"--map-by", "ppr:1:core", "./a"}), hosts, kMachine, env);
  REQUIRE(plan.has_value());
  const Status too_many = map_on_reported_slots(*plan, {4, 8}, {2, 8});
  REQUIRE_FALSE(too_many);
  CHECK(too_many.error().kind == ErrorKind::BadOption);
  // Several application contexts without -n: refused by name.
  const auto mpmd = make_plan(opts({"--npersocket", "1", "./a", ":", "./b"}), hosts, kMachine, env);
  REQUIRE_FALSE(mpmd.has_value());
  CHECK(mpmd.error().detail.find("several application contexts") != std::string::npos);
}

// mpirun 4.1.4 (measured on virtual nodes): each context with a host file runs on its file's
// hosts; a later context's -H must name a host of the files.
TEST_CASE("mpmd: a host file per context keeps each context on its file's hosts") {
  HostList hosts{{{.name = "n1", .slots = 2, .slots_given = true},
                  {.name = "n2", .slots = 2, .slots_given = true}},
                 "hostfiles hf1, hf2"};
  hosts.hostfile_hosts = {{"hf1", {"n1"}}, {"hf2", {"n2"}}};
  const auto plan = make_plan(opts({"--launcher=local", "-n", "1", "--hostfile", "hf2", "./a", ":",
                                    "-n", "2", "--hostfile", "hf1", "./b", ":", "-n", "1", "./c"}),
                              hosts, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  REQUIRE(plan->map.size() == 4);
  CHECK(plan->map.node_name(plan->map.node_of(0)) == "n2");
  CHECK(plan->map.node_name(plan->map.node_of(1)) == "n1");
  CHECK(plan->map.node_name(plan->map.node_of(2)) == "n1");
  CHECK(plan->map.node_name(plan->map.node_of(3)) == "n2");  // ./c: any host, n1 is full
  const auto full = make_plan(opts({"--launcher=local", "-n", "1", "--hostfile", "hf2", "./a", ":",
                                    "-n", "2", "--hostfile", "hf2", "./b"}),
                              hosts, kMachine, env);
  REQUIRE_FALSE(full.has_value());
  CHECK(full.error().kind == ErrorKind::NotEnoughSlots);
  // A context's -H narrows its host file's hosts; none left is mpirun's "already filled".
  HostList dash_h{{{.name = "n2", .slots = 1}},
                  "-H n2 (host files hf1, hf2 narrow their contexts)"};
  dash_h.hostfile_hosts = hosts.hostfile_hosts;
  const auto picked = make_plan(opts({"--launcher=local", "-n", "1", "--hostfile", "hf2", "./a",
                                      ":", "-n", "1", "-H", "n2", "./b"}),
                                dash_h, kMachine, env);
  REQUIRE_FALSE(picked.has_value());  // n2 has the one slot -H gives it
  CHECK(picked.error().kind == ErrorKind::NotEnoughSlots);
  const auto outside = make_plan(opts({"--launcher=local", "-n", "1", "--hostfile", "hf1", "./a",
                                       ":", "-n", "1", "-H", "n2", "./b"}),
                                 dash_h, kMachine, env);
  REQUIRE_FALSE(outside.has_value());
  CHECK(outside.error().kind == ErrorKind::BadOption);
  CHECK(outside.error().detail.starts_with("application context 1: none of the job's hosts"));
  const auto seq = make_plan(opts({"--launcher=local", "--map-by", "seq", "-n", "1", "--hostfile",
                                   "hf1", "./a", ":", "-n", "1", "--hostfile", "hf2", "./b"}),
                             hosts, kMachine, env);
  REQUIRE_FALSE(seq.has_value());
  CHECK(seq.error().detail.find("a host file per application context") != std::string::npos);
}

// mpirun 4.1.4 (measured): Open MPI's parameter files ($HOME/.openmpi/mca-params.conf, the
// system's) steer mpirun itself, after the environment; the ranks get nothing from them (their
// Open MPI reads the files).
TEST_CASE("Open MPI's parameter files steer the plan, after OMPI_MCA_* and --tune files") {
  Options o = opts({"-n", "6", "./a"});
  o.param_file_mca = {{"rmaps_base_oversubscribe", "0"},
                      {"hwloc_base_binding_policy", "core"},
                      {"rmaps_base_oversubscribe", "true"},  // the user's file, read last
                      {"hwloc_base_binding_policy", "none"}};
  auto plan = make_plan(o, HostList{}, kMachine, env);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->map.size() == 6);  // 4 CPUs, oversubscribed as the file asks
  CHECK(plan->placement.bind_none);
  CHECK(plan->env.empty());
  // The environment and a --tune file's --mca win over the parameter files.
  const auto no = make_plan(o, HostList{}, kMachine, [](const std::string& name) {
    return name == "OMPI_MCA_rmaps_base_oversubscribe" ? std::optional<std::string>("0")
                                                       : std::nullopt;
  });
  REQUIRE_FALSE(no.has_value());
  CHECK(no.error().kind == ErrorKind::NotEnoughSlots);
  o.tune_mca = {{"hwloc_base_binding_policy", "core"}};
  plan = make_plan(o, HostList{}, kMachine, env);
  REQUIRE(plan.has_value());
  CHECK(plan->placement.bind_level == HwLevel::Core);
  CHECK_FALSE(plan->placement.bind_none);
}

// mpirun 4.1.4 (measured): OMPI_MCA_rmaps_base_oversubscribe=on is false after a block ("An
// invalid value was supplied for an enum variable"): -n 3 on 2 cores fails; "enabled" is true.
TEST_CASE("boolean MCA parameters: Open MPI's words; others false, with a warning") {
  const auto with = [](const char* value) {
    return [value](const std::string& name) {
      return name == "OMPI_MCA_rmaps_base_oversubscribe" ? std::optional<std::string>(value)
                                                         : std::nullopt;
    };
  };
  auto plan = make_plan(opts({"-n", "6", "./a"}), HostList{}, kMachine, with("enabled"));
  REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
  CHECK(plan->map.size() == 6);
  plan = make_plan(opts({"-n", "6", "./a"}), HostList{}, kMachine, with("on"));
  REQUIRE_FALSE(plan.has_value());
  CHECK(plan.error().kind == ErrorKind::NotEnoughSlots);
  plan = make_plan(opts({"-n", "4", "./a"}), HostList{}, kMachine, with("on"));
  REQUIRE(plan.has_value());
  REQUIRE(plan->warnings.size() == 1);
  CHECK(
      plan->warnings[0].starts_with("MCA parameter rmaps_base_oversubscribe = 'on' is not a "
                                    "boolean Open MPI reads"));
}

// mpirun 4.1.4 (measured): its output parameters steer it from --mca, the environment, a --tune
// file and the parameter files; a --mca of one wins over its option, the environment does not.
TEST_CASE("output parameters: tag, timestamp and quiet from every source; XML refused") {
  const auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](const std::string& name) -> std::optional<std::string> {
      const auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  const auto none = env_of({});
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    bool tag, timestamp, quiet;
  };
  const Case cases[] = {
      {{"-n", "1", "./a"}, {}, false, false, false},
      {{"--tag-output", "-n", "1", "./a"}, {}, true, false, false},
      {{"--mca", "orte_tag_output", "1", "-n", "1", "./a"}, {}, true, false, false},
      {{"--mca", "orte_tag_output", "0", "--tag-output", "-n", "1", "./a"},
       {},
       false,
       false,
       false},
      {{"--tag-output", "--mca", "orte_tag_output", "no", "-n", "1", "./a"},
       {},
       false,
       false,
       false},
      {{"--tag-output", "-n", "1", "./a"}, {{"OMPI_MCA_orte_tag_output", "0"}}, true, false, false},
      {{"-n", "1", "./a"}, {{"OMPI_MCA_orte_timestamp_output", "yes"}}, false, true, false},
      {{"-n", "1", "./a"}, {{"OMPI_MCA_orte_execute_quiet", "1"}}, false, false, true},
      {{"-q", "-n", "1", "./a"}, {}, false, false, true},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    auto plan = make_plan(opts(c.args), HostList{}, kMachine, env_of(c.env));
    REQUIRE_MESSAGE(plan.has_value(), plan.error().detail);
    CHECK(plan->tag_output == c.tag);
    CHECK(plan->timestamp_output == c.timestamp);
    CHECK(plan->quiet == c.quiet);
  }
  Options o = opts({"-n", "1", "./a"});
  o.param_file_mca = {{"orte_tag_output", "1"}};
  auto plan = make_plan(o, HostList{}, kMachine, none);
  REQUIRE(plan.has_value());
  CHECK(plan->tag_output);
  // stderr into stdout at the source: a file's line reaches the agents through the ranks'
  // environment; a --mca is there already.
  o.param_file_mca = {{"iof_base_redirect_app_stderr_to_stdout", "true"}};
  plan = make_plan(o, HostList{}, kMachine, none);
  REQUIRE(plan.has_value());
  CHECK(std::count(plan->env.begin(), plan->env.end(),
                   "OMPI_MCA_iof_base_redirect_app_stderr_to_stdout=true") == 1);
  plan = make_plan(opts({"--mca", "iof_base_redirect_app_stderr_to_stdout", "1", "-n", "1", "./a"}),
                   HostList{}, kMachine, none);
  REQUIRE(plan.has_value());
  CHECK(std::count_if(plan->env.begin(), plan->env.end(), [](const std::string& e) {
          return e.starts_with("OMPI_MCA_iof_base_redirect_app_stderr_to_stdout=");
        }) == 1);
  for (const auto& env : {env_of({{"OMPI_MCA_orte_xml_output", "1"}}), none}) {
    plan = make_plan(env("OMPI_MCA_orte_xml_output")
                         ? opts({"-n", "1", "./a"})
                         : opts({"--mca", "orte_xml_output", "true", "-n", "1", "./a"}),
                     HostList{}, kMachine, env);
    REQUIRE_FALSE(plan.has_value());
    CHECK(plan.error().kind == ErrorKind::BadOption);
    CHECK(plan.error().detail.find("orte_xml_output") != std::string::npos);
  }
}

// mpirun 4.1.4 (measured on a saved 2-socket topology with --do-not-launch): the parameters of
// its placement options act as the options when the options are not given.
TEST_CASE("placement options' MCA parameters act as the options") {
  const auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](const std::string& name) -> std::optional<std::string> {
      const auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  const auto applied = [&](std::vector<std::string> args,
                           std::map<std::string, std::string> env = {}) {
    Options o = opts(std::move(args));
    const Status st = apply_option_parameters(o, env_of(std::move(env)));
    REQUIRE_MESSAGE(st.has_value(), st.error().detail);
    return o;
  };
  CHECK(applied({"--mca", "rmaps_base_n_pernode", "2", "./a"}).per_node == 2);
  CHECK(applied({"./a"}, {{"OMPI_MCA_rmaps_ppr_n_pernode", "3"}}).per_node == 3);
  CHECK(applied({"--mca", "rmaps_base_pernode", "true", "./a"}).per_node == 1);
  CHECK_FALSE(applied({"--mca", "rmaps_base_n_pernode", "0", "./a"}).per_node);
  CHECK(applied({"-N", "1", "--mca", "rmaps_base_n_pernode", "3", "./a"}).per_node == 1);
  CHECK_FALSE(applied({"--map-by", "core", "--mca", "rmaps_base_n_pernode", "1", "./a"}).per_node);
  CHECK(applied({"--mca", "rmaps_base_n_persocket", "2", "./a"}).per_socket == 2);
  CHECK(applied({"--mca", "rmaps_ppr_pattern", "2:socket", "./a"}).ppr == "2:socket");
  const Options by_node = applied({"--mca", "rmaps_base_bynode", "1", "./a"});
  CHECK(by_node.map_by_text == "node");
  CHECK(by_node.map_by == MapBy::Node);
  CHECK(applied({"--mca", "hwloc_base_bind_to_core", "1", "./a"}).bind_to == "core");
  CHECK(applied({"--mca", "rmaps_base_cpus_per_proc", "2", "./a"}).cpus_per_proc == "2");
  CHECK(applied({"./a"}, {{"OMPI_MCA_orte_rankfile", "rf"}}).rankfile == "rf");
  CHECK(applied({"./a"}, {{"OMPI_MCA_orte_do_not_launch", "1"}}).do_not_launch);
  // The same policy twice is no conflict; another is refused, as mpirun refuses it.
  CHECK(applied({"--mca", "rmaps_base_bycore", "1", "--map-by", "core", "./a"}).map_by_text ==
        "core");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--mca", "rmaps_base_bycore", "1", "--mca", "rmaps_base_bynode",
                                 "1", "./a"},
        {"--mca", "rmaps_base_bycore", "1", "--map-by", "node", "./a"},
        {"--mca", "rmaps_base_byslot", "1", "--ppr", "1:socket", "./a"},
        {"--mca", "hwloc_base_bind_to_socket", "1", "--bind-to", "core", "./a"},
        {"--mca", "hwloc_base_bind_to_core", "1", "--mca", "hwloc_base_bind_to_socket", "1", "./a"},
        {"--mca", "rmaps_base_n_pernode", "many", "./a"}}) {
    CAPTURE(fmt::format("{}", fmt::join(args, " ")));
    Options o = opts(args);
    const Status st = apply_option_parameters(o, env_of({}));
    REQUIRE_FALSE(st.has_value());
    CHECK(st.error().kind == ErrorKind::BadOption);
  }
}

// mpirun 4.1.4 (measured): orte_abort_on_non_zero_status false (0, no, false) lets a rank's
// non-zero exit end only that rank; --mca wins over the environment, which wins over the
// parameter files; a word Open MPI does not read ("off") leaves the default, true.
TEST_CASE("orte_abort_on_non_zero_status: --mca, environment, parameter files; default true") {
  CHECK(make_plan(opts({"./a"}), HostList{}, kMachine, env)->abort_on_nonzero);
  CHECK_FALSE(make_plan(opts({"--mca", "orte_abort_on_non_zero_status", "0", "./a"}), HostList{},
                        kMachine, env)
                  ->abort_on_nonzero);
  const auto off_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "OMPI_MCA_orte_abort_on_non_zero_status") return std::string("no");
    return std::nullopt;
  };
  CHECK_FALSE(make_plan(opts({"./a"}), HostList{}, kMachine, off_env)->abort_on_nonzero);
  CHECK(make_plan(opts({"--mca", "orte_abort_on_non_zero_status", "true", "./a"}), HostList{},
                  kMachine, off_env)
            ->abort_on_nonzero);
  Options files = opts({"./a"});
  files.param_file_mca = {{"orte_abort_on_non_zero_status", "false"}};
  CHECK_FALSE(make_plan(files, HostList{}, kMachine, env)->abort_on_nonzero);
  const auto off = make_plan(opts({"--mca", "orte_abort_on_non_zero_status", "off", "./a"}),
                             HostList{}, kMachine, env);
  REQUIRE(off.has_value());
  CHECK(off->abort_on_nonzero);
  REQUIRE(off->warnings.size() == 1);
  CHECK(off->warnings[0].find("orte_abort_on_non_zero_status = 'off'") != std::string::npos);
}
