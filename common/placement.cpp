#include "common/placement.hpp"

#include "common/text.hpp"
#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <utility>

namespace mpilaunch {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "a:b,c" -> {"a", "b", "c"}: Open MPI separates a policy's modifiers with ':' or ','.
std::vector<std::string> split_words(const std::string& s) {
  const std::vector<std::string_view> words = split_at_any(s, ":,");
  return {words.begin(), words.end()};
}

std::optional<int> small_positive(std::string_view text) {
  return parse_int<int>(text, 1, 65536);
}

Error bad(std::string detail) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(detail)};
}

constexpr std::string_view kObjects =
    "hwthread, core, l1cache, l2cache, l3cache, numa, socket or board";

Status parse_map_by(const std::string& value, PlacementPolicy& p) {
  if (value.empty()) return {};
  p.map_given = true;
  const std::vector<std::string> words = split_words(lower(value));
  std::size_t next = 1;
  const std::string& base = words[0];
  if (base == "slot" || base.empty()) {
  } else if (base == "node") {
    p.by_node = true;
  } else if (base == "ppr") {
    if (words.size() < 3)
      return bad(mpilaunch::format(
          "--map-by {}: ppr needs a count and an object, e.g. ppr:2:socket", value));
    const auto n = small_positive(words[1]);
    if (!n)
      return bad(
          mpilaunch::format("--map-by {}: '{}' is not a count of processes", value, words[1]));
    p.ppr = *n;
    if (words[2] == "node") {
      p.by_node = false;  // N per node: the node itself is the object
      p.map_level = HwLevel::Board;
    } else if (const auto level = parse_level(words[2])) {
      p.map_level = *level;
    } else {
      return bad(mpilaunch::format("--map-by {}: ppr's object must be node, {}", value, kObjects));
    }
    next = 3;
  } else if (const auto level = parse_level(base)) {
    p.map_level = *level;
  } else if (base == "seq") {
    // The host order comes from -H or the host file (launch_plan.cpp); the binding is the
    // default one, as mpirun 4.1.4's SEQUENTIAL policy binds (core up to 2 ranks, else NUMA).
    p.seq = true;
    p.map_given = false;
  } else if (base == "dist" || base == "rankfile") {
    return bad(mpilaunch::format(
        "--map-by {}: not supported by mpilaunch yet; use slot, node, seq, an object ({}) or "
        "ppr:N:OBJECT",
        value, kObjects));
  } else {
    return bad(mpilaunch::format("--map-by {}: unknown policy; use slot, node, {} or ppr:N:OBJECT",
                                 value, kObjects));
  }
  for (std::size_t i = next; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.starts_with("pe=")) {
      const auto n = small_positive(std::string_view(w).substr(3));
      if (!n) return bad(mpilaunch::format("--map-by {}: PE= needs a count of CPUs", value));
      p.pe = *n;
    } else if (w == "span") {
      p.span = true;
    } else if (w == "oversubscribe") {
      p.oversubscribe = true;
    } else if (w == "nooversubscribe") {
      p.oversubscribe = false;
    } else if (w == "display") {
      p.display = true;
    } else if (!w.empty()) {
      return bad(mpilaunch::format(
          "--map-by {}: unknown modifier '{}'; use PE=n, SPAN, OVERSUBSCRIBE, NOOVERSUBSCRIBE "
          "or DISPLAY",
          value, w));
    }
  }
  return {};
}

Status parse_rank_by(const std::string& value, PlacementPolicy& p) {
  if (value.empty()) return {};
  p.rank_given = true;
  const std::vector<std::string> words = split_words(lower(value));
  if (words[0] == "slot" || words[0] == "node") {
    p.rank_by_node = words[0] == "node";
  } else if (const auto level = parse_level(words[0])) {
    p.rank_level = *level;
  } else {
    return bad(
        mpilaunch::format("--rank-by {}: use slot, node or an object ({})", value, kObjects));
  }
  for (std::size_t i = 1; i < words.size(); ++i)
    if (words[i] == "span")
      p.rank_span = true;
    else if (!words[i].empty())
      return bad(
          mpilaunch::format("--rank-by {}: unknown modifier '{}'; use SPAN", value, words[i]));
  return {};
}

Status parse_bind_to(const std::string& value, PlacementPolicy& p) {
  if (value.empty()) return {};
  p.bind_given = true;
  const std::vector<std::string> words = split_words(lower(value));
  if (words[0] == "none") {
    p.bind_none = true;
  } else if (words[0] == "cpu-list") {
    p.bind_cpu_list = true;
  } else if (const auto level = parse_level(words[0])) {
    p.bind_level = *level;
  } else {
    return bad(
        mpilaunch::format("--bind-to {}: use none, cpu-list or an object ({})", value, kObjects));
  }
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "overload-allowed")
      p.overload_allowed = true;
    else if (words[i] == "if-supported")
      p.if_supported = true;
    else if (words[i] == "ordered" && p.bind_cpu_list)
      p.ordered = true;
    else if (!words[i].empty())
      return bad(
          mpilaunch::format("--bind-to {}: unknown modifier '{}'; use overload-allowed or "
                            "if-supported (ordered after cpu-list)",
                            value, words[i]));
  }
  return {};
}

// --cpu-list and what it cannot go with: measured with mpirun 4.1.4, whose --cpu-list (without
// :ordered) is its rank_file mapper with the list as every rank's slot.
Status parse_cpu_list(const PlacementOptions& o, PlacementPolicy& p) {
  if (!o.cpu_list.empty()) {
    auto slot = parse_rank_slot(o.cpu_list);
    if (!slot)
      return bad(mpilaunch::format(
          "--cpu-list {}: not a list of CPUs; write N, N-M or N,M (logical cores, or hwthreads "
          "with --use-hwthread-cpus), or S:C for cores of socket S",
          o.cpu_list));
    p.cpu_list = std::move(slot).value();
  }
  if (!p.cpu_list && !p.bind_cpu_list) return {};
  if (o.cpus_per_proc || p.pe > 1)
    return bad(
        "--cpu-list (or --bind-to cpu-list) binds each process to the list's CPUs: it cannot "
        "go with PE=n or --cpus-per-proc (mpirun 4.1.4 refuses the conflicting binding too)");
  if (!p.cpu_list) return {};
  if (p.ordered && p.cpu_list->socket)
    return bad(mpilaunch::format(
        "--cpu-list {} with --bind-to cpu-list:ordered: give logical CPUs (N, N-M or N,M); the "
        "S:C form is for a plain --cpu-list",
        o.cpu_list));
  if (p.ordered) return {};
  if (p.map_given || p.seq || p.ppr > 0)
    return bad(
        "--cpu-list places the ranks over the slots itself (mpirun 4.1.4: \"Conflicting "
        "directives for mapping policy\"); leave out --map-by, or add --bind-to "
        "cpu-list:ordered to map with --map-by and bind each process to one CPU of the list");
  return {};
}

}  // namespace

Result<PlacementPolicy> parse_placement(const PlacementOptions& o) {
  PlacementPolicy p;
  if (auto st = parse_map_by(o.map_by, p); !st) return st.error();
  if (auto st = parse_rank_by(o.rank_by, p); !st) return st.error();
  if (auto st = parse_bind_to(o.bind_to, p); !st) return st.error();
  if (o.cpus_per_proc) {
    if (*o.cpus_per_proc < 1)
      return bad(mpilaunch::format("--cpus-per-proc {}: must be at least 1", *o.cpus_per_proc));
    p.pe = *o.cpus_per_proc;
  }
  if (p.pe > 1 && p.bind_none)
    return bad(mpilaunch::format(
        "PE={} binds each process to {} CPUs: it cannot go with --bind-to none", p.pe, p.pe));
  p.use_hwthreads = o.use_hwthread_cpus;
  p.report_bindings = o.report_bindings;
  p.display = p.display || o.display_map;
  if (auto st = parse_cpu_list(o, p); !st) return st.error();
  return p;
}

namespace {

// What one node's ranks were bound to, and how loaded each object is.
struct Usage {
  std::map<int, int> per_object;  // bind-level object -> ranks bound to it
  std::map<int, int> per_unit;    // CPU (core or hwthread) -> ranks bound to it (PE binding)
};

struct Overload {
  int processes = 0;
  int cpus = 0;
};

bool intersects(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](std::uint32_t p) { return std::binary_search(b.begin(), b.end(), p); });
}

// mpirun 4.1.4's mapper on one node (measured on tests/data/topologies): the j-th process it
// places goes to which of `objects` (-1: the whole node, by slot). Over objects it deals one
// process to each in turn (BYNUMA, BYSOCKET, ...: rank 1 on the second socket), ppr:N fills each
// object with N. `index[j]` is the j-th process's place in the dealing: j, after an earlier
// virtual node's processes on the same machine; with ppr counted within its application
// context, which mpirun maps on its own from the first object.
std::vector<int> map_node(const std::vector<std::vector<std::uint32_t>>& objects,
                          const std::vector<int>& index, const PlacementPolicy& policy) {
  std::vector<int> out(index.size(), -1);
  if (objects.empty()) return out;
  const int n = static_cast<int>(objects.size());
  for (std::size_t j = 0; j < index.size(); ++j) {
    const int k = index[j];
    out[j] = (policy.ppr > 0 ? k / policy.ppr : k) % n;
  }
  return out;
}

// mpirun 4.1.4's ranking on one node: which mapped process (index into `mapped`) gets the
// node's i-th rank. By slot (and by default) in the order they were mapped; --rank-by OBJECT
// goes round the node's objects of that level, each giving the next number to the first
// process not yet numbered whose mapped object shares CPUs with it (measured: --map-by socket
// --rank-by core numbers a socket's processes first, 0 2 1 3 in mapping order).
std::vector<int> rank_node(const NodeTopology& topo,
                           const std::vector<std::vector<std::uint32_t>>& objects,
                           const std::vector<int>& mapped, const PlacementPolicy& policy) {
  std::vector<int> order;
  const int count = static_cast<int>(mapped.size());
  const auto rank_objects = policy.rank_level ? topo.objects(*policy.rank_level)
                                              : std::vector<std::vector<std::uint32_t>>{};
  std::vector<std::uint32_t> node;
  for (std::uint32_t p = 0; p < topo.pus.size(); ++p) node.push_back(p);
  std::vector<bool> numbered(mapped.size(), false);
  bool progress = !rank_objects.empty();
  while (progress && static_cast<int>(order.size()) < count) {
    progress = false;
    for (const auto& object : rank_objects) {
      for (int j = 0; j < count; ++j) {
        const int m = mapped[static_cast<std::size_t>(j)];
        if (numbered[static_cast<std::size_t>(j)] ||
            !intersects(object, m >= 0 ? objects[static_cast<std::size_t>(m)] : node))
          continue;
        numbered[static_cast<std::size_t>(j)] = true;
        order.push_back(j);
        progress = true;
        break;
      }
    }
  }
  for (int j = 0; j < count; ++j)
    if (!numbered[static_cast<std::size_t>(j)]) order.push_back(j);
  return order;
}

// mpirun 4.1.4's byobj_span (--map-by OBJECT:SPAN): where each node's j-th placed process was
// placed, as an index into that node's OBJECT objects, before its locations are reassigned.
// The job's np processes are divided over every object of every node in order: navg = np /
// objects (at least 1) each, the first np - navg * objects objects one more, each object's
// share placed together (socket:SPAN -n 6 over 2 sockets: 0 0 0 1 1 1). A node whose count in
// `map` is not its share (the job was placed over the nodes otherwise) divides its own processes
// over its own objects the same way.
std::vector<std::vector<int>> span_blocks(const JobMap& map,
                                          const std::vector<NodePlacementInput>& nodes,
                                          HwLevel level) {
  const auto divide = [](int np, const std::vector<int>& objects_of_node) {
    const int objects = std::accumulate(objects_of_node.begin(), objects_of_node.end(), 0);
    std::vector<std::vector<int>> out(objects_of_node.size());
    if (objects == 0) return out;
    const int navg = std::max(1, np / objects);
    int extra = std::max(0, np - navg * objects);
    int left = np;
    for (std::size_t n = 0; n < objects_of_node.size(); ++n)
      for (int o = 0; o < objects_of_node[n] && left > 0; ++o) {
        const int take = std::min(left, navg + (extra > 0 ? 1 : 0));
        if (extra > 0) --extra;
        out[n].insert(out[n].end(), static_cast<std::size_t>(take), o);
        left -= take;
      }
    return out;
  };
  std::vector<int> objects_of_node;
  for (int n = 0; n < map.node_count(); ++n)
    objects_of_node.push_back(
        static_cast<int>(nodes[static_cast<std::size_t>(n)].topology.objects(level).size()));
  std::vector<std::vector<int>> blocks = divide(map.size(), objects_of_node);
  for (int n = 0; n < map.node_count(); ++n) {
    const int count = static_cast<int>(map.ranks_on(n).size());
    auto& block = blocks[static_cast<std::size_t>(n)];
    if (static_cast<int>(block.size()) != count)
      block = divide(count, {objects_of_node[static_cast<std::size_t>(n)]}).front();
  }
  return blocks;
}

}  // namespace

namespace {

// Each node's ranks bound to `bind_level`'s objects, and where that puts more processes on an
// object than it has CPUs (the first such object of each node). `share`: virtual nodes of one
// machine, a node's ranks continuing where the previous node's ended.
struct Placed {
  JobBindings out;
  std::vector<std::optional<Overload>> overload;  // [node]
};

Result<Placed> place_nodes(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                           const PlacementPolicy& policy, HwLevel bind_level, bool explicit_binding,
                           bool share) {
  Placed placed;
  JobBindings& out = placed.out;
  out.pus.resize(static_cast<std::size_t>(map.node_count()));
  for (int n = 0; n < map.node_count(); ++n)
    out.pus[static_cast<std::size_t>(n)].resize(map.ranks_on(n).size());
  placed.overload.resize(static_cast<std::size_t>(map.node_count()));
  const std::optional<HwLevel> bind = bind_level;
  const HwLevel cpu = policy.use_hwthreads ? HwLevel::HwThread : HwLevel::Core;
  Usage shared_usage;
  // The processes of the earlier virtual nodes of a shared machine, per application context.
  std::map<int, int> shared_of_context;
  const auto context_of = [&](int rank) {
    return static_cast<int>(
        std::upper_bound(policy.context_starts.begin(), policy.context_starts.end(), rank) -
        policy.context_starts.begin());
  };
  const std::vector<std::vector<int>> spans =
      policy.span && policy.map_level && policy.ppr == 0 && policy.context_starts.empty()
          ? span_blocks(map, nodes, *policy.map_level)
          : std::vector<std::vector<int>>{};
  for (int n = 0; n < map.node_count(); ++n) {
    const NodePlacementInput& node = nodes[static_cast<std::size_t>(n)];
    const NodeTopology& topo = node.topology;
    if (topo.pus.empty()) continue;  // nothing known about this node's CPUs: leave it unbound
    Usage own;
    Usage& usage = share ? shared_usage : own;
    const HwLevel unit_level = topo.count(cpu) > 0 ? cpu : HwLevel::HwThread;
    const auto units = topo.objects(unit_level);
    // The bind level's objects; a node without them binds nothing when that is allowed.
    HwLevel level = *bind;
    if (level == HwLevel::Numa && topo.count(HwLevel::Numa) == 0) level = HwLevel::Socket;
    const auto bind_objects = topo.objects(level);
    if (bind_objects.empty()) {
      if (explicit_binding && !policy.if_supported)
        return bad(mpilaunch::format(
            "--bind-to {}: node {} has no {} objects; bind to another object or add "
            ":if-supported",
            level_name(*bind), map.node_name(n), level_name(*bind)));
      continue;
    }
    // Where each rank was mapped: the objects of --map-by, or by default (mpirun's BYCORE up
    // to 2 ranks, BYNUMA above or with PE=n) cores or NUMA nodes, else the whole node.
    std::vector<std::vector<std::uint32_t>> locale_objects;
    if (policy.map_level) {
      locale_objects = topo.objects(*policy.map_level);
      if (locale_objects.empty() && !policy.if_supported)
        return bad(mpilaunch::format("--map-by {}: node {} has no {} objects",
                                     level_name(*policy.map_level), map.node_name(n),
                                     level_name(*policy.map_level)));
    } else if (!policy.map_given) {
      locale_objects = topo.objects(map.size() <= 2 && policy.pe == 1 ? unit_level : HwLevel::Numa);
      if (locale_objects.empty()) locale_objects = topo.objects(HwLevel::Socket);
    }
    const int local_count = static_cast<int>(map.ranks_on(n).size());
    // ppr: each application context's ranks on this node, N per object.
    std::map<int, int> per_context;
    for (const int rank : map.ranks_on(n)) ++per_context[context_of(rank)];
    for (const auto& [context, count] : per_context)
      if (policy.ppr > 0 && !locale_objects.empty() &&
          count > policy.ppr * static_cast<int>(locale_objects.size()))
        return bad(mpilaunch::format(
            "--map-by ppr:{}:{}: node {} has {} {} object{}, room for {} processes{}, but {} "
            "were placed there; ask for fewer processes (-n) or give the node fewer slots",
            policy.ppr, level_name(*policy.map_level), map.node_name(n), locale_objects.size(),
            level_name(*policy.map_level), locale_objects.size() == 1 ? "" : "s",
            policy.ppr * static_cast<int>(locale_objects.size()),
            per_context.size() > 1 ? mpilaunch::format(" of application context {}", context + 1)
                                   : "",
            count));
    // Virtual nodes of one machine continue its mapping where the previous node's ended (each
    // application context's own with ppr; there is one context otherwise).
    std::map<int, int> placed_of_context;  // this node's processes of each context so far
    std::vector<int> index;
    for (const int rank : map.ranks_on(n)) {
      const int context = context_of(rank);
      index.push_back((share ? shared_of_context[context] : 0) + placed_of_context[context]++);
    }
    const std::vector<int> mapped = map_node(locale_objects, index, policy);
    // :SPAN numbers the processes where byobj_span placed them, by default going round the
    // objects it mapped to (mpirun's default ranking follows --map-by OBJECT); the mapping
    // above is where they end up (assign_locations: the j-th to object j % objects).
    const bool span = !spans.empty() && !locale_objects.empty() &&
                      spans[static_cast<std::size_t>(n)].size() == index.size();
    PlacementPolicy span_ranking = policy;
    if (span && !policy.rank_given) span_ranking.rank_level = policy.map_level;
    const std::vector<int> order =
        rank_node(topo, locale_objects, span ? spans[static_cast<std::size_t>(n)] : mapped,
                  span ? span_ranking : policy);
    out.mapped_order.resize(static_cast<std::size_t>(map.node_count()));
    out.mapped_order[static_cast<std::size_t>(n)].assign(order.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i)
      out.mapped_order[static_cast<std::size_t>(n)][static_cast<std::size_t>(order[i])] =
          static_cast<int>(i);
    // Bound in the order they were mapped (each takes the least used object where it was
    // mapped, so the order decides which), each local rank i being the order[i]-th mapped.
    for (int j = 0; j < local_count; ++j) {
      const int i = out.mapped_order[static_cast<std::size_t>(n)][static_cast<std::size_t>(j)];
      // The rank's locale: the object it was mapped to, or the whole node.
      std::vector<std::uint32_t> locale;
      if (mapped[static_cast<std::size_t>(j)] >= 0) {
        locale = locale_objects[static_cast<std::size_t>(mapped[static_cast<std::size_t>(j)])];
      } else {
        for (std::uint32_t p = 0; p < topo.pus.size(); ++p) locale.push_back(p);
      }
      auto in_locale = [&](const std::vector<std::uint32_t>& pus) {
        return std::all_of(pus.begin(), pus.end(), [&](std::uint32_t p) {
          return std::binary_search(locale.begin(), locale.end(), p);
        });
      };
      std::vector<std::uint32_t>& bound =
          out.pus[static_cast<std::size_t>(n)][static_cast<std::size_t>(i)];
      if (policy.pe > 1) {
        // PE CPUs each: the least used CPUs of the locale, first in order.
        std::vector<int> candidates;
        for (std::size_t u = 0; u < units.size(); ++u)
          if (in_locale(units[u])) candidates.push_back(static_cast<int>(u));
        if (static_cast<int>(candidates.size()) < policy.pe)
          return bad(mpilaunch::format(
              "PE={}: node {} has {} {}s where process {} was mapped; ask for fewer CPUs per "
              "process",
              policy.pe, map.node_name(n), candidates.size(), level_name(unit_level),
              map.ranks_on(n)[static_cast<std::size_t>(i)]));
        std::stable_sort(candidates.begin(), candidates.end(),
                         [&](int a, int b) { return usage.per_unit[a] < usage.per_unit[b]; });
        candidates.resize(static_cast<std::size_t>(policy.pe));
        std::sort(candidates.begin(), candidates.end());
        for (const int u : candidates) {
          const auto& pus = units[static_cast<std::size_t>(u)];
          bound.insert(bound.end(), pus.begin(), pus.end());
          std::optional<Overload>& first_overload = placed.overload[static_cast<std::size_t>(n)];
          if (++usage.per_unit[u] > 1 && !first_overload)
            first_overload = Overload{usage.per_unit[u], 1};
        }
        std::sort(bound.begin(), bound.end());
        continue;
      }
      // The bind-level object holding the whole locale (binding upwards), else the least used
      // one inside it (binding downwards), first in order.
      int chosen = -1;
      for (std::size_t b = 0; b < bind_objects.size() && chosen < 0; ++b)
        if (std::includes(bind_objects[b].begin(), bind_objects[b].end(), locale.begin(),
                          locale.end()))
          chosen = static_cast<int>(b);
      if (chosen < 0)
        for (std::size_t b = 0; b < bind_objects.size(); ++b)
          if (in_locale(bind_objects[b]) &&
              (chosen < 0 || usage.per_object[static_cast<int>(b)] < usage.per_object[chosen]))
            chosen = static_cast<int>(b);
      if (chosen < 0) continue;  // no such object where the rank was mapped
      bound = bind_objects[static_cast<std::size_t>(chosen)];
      const int ranks = ++usage.per_object[chosen];
      int cpus = 0;
      // A CPU counts when the object holds some of it: a hwthread holds one of a core's.
      for (const auto& unit : units) cpus += intersects(unit, bound) ? 1 : 0;
      std::optional<Overload>& first_overload = placed.overload[static_cast<std::size_t>(n)];
      if (ranks > cpus && !first_overload) first_overload = Overload{ranks, cpus};
    }
    for (const auto& [context, count] : placed_of_context) shared_of_context[context] += count;
  }
  return placed;
}

}  // namespace

namespace {

// mpirun 4.1.4 maps the processes over the objects also when it binds none of them, and its JOB
// MAP lists them in that order (measured: --map-by socket --rank-by core -n 4 with --bind-to
// none, or oversubscribed, lists 0 2 1 3): each node's order as place_nodes() finds it (empty:
// by rank, when it cannot).
std::vector<std::vector<int>> unbound_order(const JobMap& map,
                                            const std::vector<NodePlacementInput>& nodes,
                                            const PlacementPolicy& policy) {
  auto placed = place_nodes(map, nodes, policy, HwLevel::HwThread, false, false);
  return placed ? placed->out.mapped_order : std::vector<std::vector<int>>{};
}

}  // namespace

Result<JobBindings> bind_ranks(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                               const PlacementPolicy& policy, bool shared_machine) {
  JobBindings out;
  out.pus.resize(static_cast<std::size_t>(map.node_count()));
  for (int n = 0; n < map.node_count(); ++n)
    out.pus[static_cast<std::size_t>(n)].resize(map.ranks_on(n).size());
  const bool explicit_binding = policy.bind_given || policy.pe > 1;
  std::optional<HwLevel> bind = policy.bind_level;
  const HwLevel cpu = policy.use_hwthreads ? HwLevel::HwThread : HwLevel::Core;
  if (policy.bind_none && (policy.cpu_list || !policy.rankfile.empty())) {
    // mpirun 4.1.4 (measured): each rank still runs on the list's CPUs only (its rankfile
    // line's), with the PMIx cpuset and locality of a binding, but Open MPI is not told it is
    // bound.
    auto kept = bind_rankfile(map, nodes, policy);
    if (kept) kept->not_bound = true;
    return kept;
  }
  // The sequential mapper binds nothing on the nodes other than the launcher's own, and tells
  // their ranks they are bound unless --bind-to none says otherwise (mpirun 4.1.4, measured:
  // --map-by seq and --mca rmaps seq, by default and with --bind-to core; its own node binds as
  // the policy says, --mca rmaps seq's not at all).
  std::vector<bool> seq_remote(static_cast<std::size_t>(map.node_count()), false);
  bool any_seq_remote = false;
  for (int n = 0; n < map.node_count() && policy.seq; ++n)
    if (nodes[static_cast<std::size_t>(n)].remote && !map.ranks_on(n).empty()) {
      seq_remote[static_cast<std::size_t>(n)] = true;
      any_seq_remote = true;
    }
  const auto tell_seq_remote = [&](JobBindings& b) {
    if (any_seq_remote && !(policy.bind_none && policy.bind_given)) b.told_bound = seq_remote;
  };
  if (policy.bind_none) {
    out.policy = "none";
    out.mapped_order = unbound_order(map, nodes, policy);
    tell_seq_remote(out);
    return out;
  }
  if (!policy.topology_file.empty()) {
    // Not this machine's topology: its CPUs may not exist here, so nothing is bound (mpirun
    // 4.1.4: default, implied, PE=n and CPU-list bindings silently dropped; an explicit
    // --bind-to refused unless :if-supported).
    if (policy.bind_given && !policy.if_supported)
      return bad(mpilaunch::format(
          "--bind-to {}: the nodes' topology is read from {} (HWLOC_XMLFILE), not from this "
          "machine, and processes cannot be bound by it (mpirun 4.1.4: \"at least one node does "
          "NOT support binding processes to cpus\"); use --bind-to none or :if-supported, or set "
          "HWLOC_THISSYSTEM=1 if the file describes this machine",
          policy.bind_level ? std::string(level_name(*policy.bind_level)) : "cpu-list",
          policy.topology_file));
    out.policy = "none";
    out.why_unbound = mpilaunch::format(
        "the nodes' topology is read from {} (HWLOC_XMLFILE), not from this machine",
        policy.topology_file);
    out.mapped_order = unbound_order(map, nodes, policy);
    // The policy still holds, so the ranks are told they are bound, unless a default binding
    // is off for an oversubscribed job (mpirun 4.1.4, measured). With a CPU list or a rankfile
    // mpirun differs again (not followed: docs/placement.md).
    bool told = !policy.cpu_list && policy.rankfile.empty();
    for (int n = 0; n < map.node_count() && !explicit_binding; ++n)
      told = told &&
             static_cast<int>(map.ranks_on(n).size()) <= nodes[static_cast<std::size_t>(n)].slots;
    if (told) out.told_bound.assign(static_cast<std::size_t>(map.node_count()), true);
    return out;
  }
  if (!policy.rankfile.empty() || (policy.cpu_list && !policy.ordered))
    return bind_rankfile(map, nodes, policy);
  if (policy.bind_cpu_list) return bind_ordered(map, nodes, policy);
  if (!bind) {
    if (policy.pe > 1)
      bind = cpu;
    else if (policy.map_level && policy.ppr == 0)
      bind = policy.map_level;
    else
      bind = map.size() <= 2 ? cpu : HwLevel::Numa;
  }
  if (!explicit_binding) {
    for (int n = 0; n < map.node_count(); ++n)
      if (static_cast<int>(map.ranks_on(n).size()) > nodes[static_cast<std::size_t>(n)].slots) {
        out.policy = "none";
        out.why_unbound =
            mpilaunch::format("{} is oversubscribed ({} processes on {} slots)", map.node_name(n),
                              map.ranks_on(n).size(), nodes[static_cast<std::size_t>(n)].slots);
        out.mapped_order = unbound_order(map, nodes, policy);
        return out;
      }
  }
  // The seq mapper's other nodes: nothing known of their CPUs, so nothing bound there.
  std::vector<NodePlacementInput> placing = nodes;
  for (std::size_t n = 0; n < placing.size(); ++n)
    if (seq_remote[n]) placing[n].topology = NodeTopology{};
  // Several virtual nodes of one machine share its CPUs only when they describe the same one.
  bool share = shared_machine;
  for (const NodePlacementInput& node : placing)
    share = share && node.topology == placing.front().topology;
  auto placed = place_nodes(map, placing, policy, *bind, explicit_binding, share);
  if (!placed) return placed.error();
  // The first node where the binding overloads an object, or -1.
  auto first_overload = [&]() {
    for (int n = 0; n < map.node_count(); ++n)
      if (placed->overload[static_cast<std::size_t>(n)]) return n;
    return -1;
  };
  int overload = first_overload();
  // :PE=n binds as given, but --oversubscribe itself lets it overload (mpirun 4.1.4, measured:
  // --map-by slot:PE=2:OVERSUBSCRIBE -n 2 on 2 cores is refused, with --oversubscribe it runs).
  const bool may_overload =
      policy.overload_allowed || ((!explicit_binding || policy.pe > 1) && policy.default_overload);
  if (overload >= 0 && !may_overload && share) {
    // Virtual nodes share the machine's CPUs while that fits; when it would overload one, each
    // node is placed on its own, as mpirun's daemon per node places it (measured: -H
    // node1:2,node2:2 -n 4 binds each node's two ranks to its NUMA node, --bind-to core to
    // cores 0 and 1 on each).
    placed = place_nodes(map, placing, policy, *bind, explicit_binding, false);
    if (!placed) return placed.error();
    overload = first_overload();
  }
  out = std::move(placed->out);
  if (overload >= 0 && !may_overload) {
    if (explicit_binding) {
      const Overload& o = *placed->overload[static_cast<std::size_t>(overload)];
      return bad(mpilaunch::format(
          "--bind-to {} would bind more processes than CPUs on a resource (node {}: {} "
          "processes on {} CPU{}); add the overload-allowed qualifier (--bind-to "
          "{}:overload-allowed), bind to a bigger object or run fewer processes",
          level_name(*bind), map.node_name(overload), o.processes, o.cpus, o.cpus == 1 ? "" : "s",
          level_name(*bind)));
    }
    // mpirun 4.1.4 drops a default binding on each node where it would overload an object, and
    // binds the other nodes' ranks (measured: -H node1:3,node2:1 -n 4 leaves node1's ranks
    // unbound and binds node2's to its NUMA node).
    out.dropped.assign(static_cast<std::size_t>(map.node_count()), false);
    bool every_node = true;
    for (int n = 0; n < map.node_count(); ++n) {
      const auto& o = placed->overload[static_cast<std::size_t>(n)];
      if (!o) {
        every_node = every_node && map.ranks_on(n).empty();
        continue;
      }
      out.dropped[static_cast<std::size_t>(n)] = true;
      for (auto& rank : out.pus[static_cast<std::size_t>(n)]) rank.clear();
      if (!out.why_unbound.empty()) out.why_unbound += "; ";
      out.why_unbound +=
          mpilaunch::format("binding to {} would put {} processes on {} CPUs of {}",
                            level_name(*bind), o->processes, o->cpus, map.node_name(n));
    }
    if (every_node) {
      out.dropped.clear();
      out.policy = "none";
      return out;
    }
  }
  out.policy = std::string(level_name(*bind));
  tell_seq_remote(out);
  for (const auto& node : out.pus)
    for (const auto& rank : node) out.bound = out.bound || !rank.empty();
  return out;
}

}  // namespace mpilaunch

namespace mpilaunch {

namespace {

// The default binding was dropped on node `n` only (JobBindings::dropped).
bool dropped_on(const JobBindings& bindings, int n) {
  return static_cast<std::size_t>(n) < bindings.dropped.size() &&
         bindings.dropped[static_cast<std::size_t>(n)];
}

// Node n's ranks are unbound but told they are bound (JobBindings::told_bound).
bool told_on(const JobBindings& bindings, int n) {
  return static_cast<std::size_t>(n) < bindings.told_bound.size() &&
         bindings.told_bound[static_cast<std::size_t>(n)];
}

}  // namespace

std::vector<std::string> report_bindings_lines(const JobMap& map,
                                               const std::vector<ReportNode>& nodes,
                                               const JobBindings& bindings) {
  if (bindings.policy == "none") return {};
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(map.size()));
  for (int rank = 0; rank < map.size(); ++rank) {
    const int n = map.node_of(rank);
    if (dropped_on(bindings, n) || told_on(bindings, n)) {
      out.emplace_back();  // the rank reports itself (its Open MPI), as under mpirun
      continue;
    }
    const ReportNode& node = nodes[static_cast<std::size_t>(n)];
    static const NodeTopology kNone;
    const NodeTopology& topology = node.topology != nullptr ? *node.topology : kNone;
    const auto& pus =
        bindings.pus[static_cast<std::size_t>(n)][static_cast<std::size_t>(map.local_rank(rank))];
    static const std::vector<std::uint32_t> kAll;
    const auto& available = static_cast<std::size_t>(n) < bindings.available.size()
                                ? bindings.available[static_cast<std::size_t>(n)]
                                : kAll;
    out.push_back(mpilaunch::format("[{}:{:05}] {}\n", node.name, node.pid,
                                    report_binding_line(rank, topology, pus, available)));
  }
  return out;
}

std::string report_bindings_text(const JobMap& map, const std::vector<ReportNode>& nodes,
                                 const JobBindings& bindings) {
  std::string out;
  for (const std::string& line : report_bindings_lines(map, nodes, bindings)) out += line;
  return out;
}

namespace {

// Node n's local ranks in the order mpirun lists them: as they were mapped, else by rank.
std::vector<std::size_t> listed(const JobMap& map, const JobBindings& bindings, int n) {
  std::vector<std::size_t> out;
  const std::size_t count = map.ranks_on(n).size();
  if (static_cast<std::size_t>(n) < bindings.mapped_order.size() &&
      bindings.mapped_order[static_cast<std::size_t>(n)].size() == count) {
    for (const int i : bindings.mapped_order[static_cast<std::size_t>(n)])
      out.push_back(static_cast<std::size_t>(i));
    return out;
  }
  for (std::size_t i = 0; i < count; ++i) out.push_back(i);
  return out;
}

int app_of(const std::vector<int>& app_of_rank, int rank) {
  return static_cast<std::size_t>(rank) < app_of_rank.size()
             ? app_of_rank[static_cast<std::size_t>(rank)]
             : 0;
}

}  // namespace

std::string display_map_text(const std::string& job, int total_slots, const JobMap& map,
                             const std::vector<ReportNode>& nodes, const JobBindings& bindings,
                             const std::vector<int>& app_of_rank) {
  std::string out = mpilaunch::format(" Data for JOB [{},1] offset 0 Total slots allocated {}\n\n",
                                      job, total_slots);
  out += " ========================   JOB MAP   ========================\n";
  for (int n = 0; n < map.node_count(); ++n) {
    const ReportNode& node = nodes[static_cast<std::size_t>(n)];
    out += mpilaunch::format("\n Data for node: {}\tNum slots: {}\tMax slots: {}\tNum procs: {}\n",
                             node.name, node.slots, node.max_slots, map.ranks_on(n).size());
    for (const std::size_t i : listed(map, bindings, n)) {
      std::string bound = "N/A";
      if (bindings.policy != "none" && !node.remote && !dropped_on(bindings, n) &&
          !told_on(bindings, n)) {
        const auto& pus = bindings.pus[static_cast<std::size_t>(n)][i];
        const BindingText text = node.topology != nullptr && !pus.empty()
                                     ? binding_text(*node.topology, pus)
                                     : BindingText{.everything = true, .where = {}, .map = {}};
        bound = text.everything ? "UNBOUND" : text.where + ":" + text.map;
      }
      const int rank = map.ranks_on(n)[i];
      out += mpilaunch::format(" \tProcess OMPI jobid: [{},1] App: {} Process rank: {} Bound: {}\n",
                               job, app_of(app_of_rank, rank), rank, bound);
    }
  }
  out += "\n =============================================================\n";
  return out;
}

std::string relative_locality_text(const NodeTopology& topology,
                                   const std::vector<std::uint32_t>& a,
                                   const std::vector<std::uint32_t>& b) {
  std::string out = "CL:CU:N:B";
  // Open MPI's order, from the largest object; a level is shared when one of its objects holds
  // PUs of both sets.
  constexpr std::pair<HwLevel, std::string_view> kLevels[] = {
      {HwLevel::Numa, "Nu"}, {HwLevel::Socket, "S"}, {HwLevel::L3, "L3"},       {HwLevel::L2, "L2"},
      {HwLevel::L1, "L1"},   {HwLevel::Core, "C"},   {HwLevel::HwThread, "Hwt"}};
  for (const auto& [level, name] : kLevels) {
    bool shared = false;
    for (std::uint32_t pa : a) {
      const int object = topology.object_of(pa, level);
      if (object < 0) continue;
      for (std::uint32_t pb : b)
        if (topology.object_of(pb, level) == object) shared = true;
    }
    if (shared) out += mpilaunch::format(":{}", name);
  }
  return out;
}

std::string display_diffable_map_text(const JobMap& map, const std::vector<ReportNode>& nodes,
                                      const JobBindings& bindings,
                                      const std::vector<int>& app_of_rank) {
  const bool bound = bindings.policy != "none";
  static const NodeTopology kNone;
  auto topology_of = [&](int n) -> const NodeTopology& {
    const NodeTopology* t = nodes[static_cast<std::size_t>(n)].topology;
    return t != nullptr ? *t : kNone;
  };
  // A rank's PUs: every PU of its node where it is not bound to fewer.
  auto pus_of = [&](int n, std::size_t i) {
    std::vector<std::uint32_t> pus;
    if (bound) pus = bindings.pus[static_cast<std::size_t>(n)][i];
    if (pus.empty())
      for (std::uint32_t p = 0; p < topology_of(n).pus.size(); ++p) pus.push_back(p);
    return pus;
  };
  std::string out = "<map>\n";
  for (int n = 0; n < map.node_count(); ++n) {
    out += mpilaunch::format("\t<host num={}>\n", n);
    const std::vector<int>& ranks = map.ranks_on(n);
    for (const std::size_t i : listed(map, bindings, n)) {
      std::string binding = "UNBOUND";
      if (bound && !nodes[static_cast<std::size_t>(n)].remote &&
          nodes[static_cast<std::size_t>(n)].topology != nullptr &&
          !bindings.pus[static_cast<std::size_t>(n)][i].empty()) {
        const BindingText text =
            binding_text(topology_of(n), bindings.pus[static_cast<std::size_t>(n)][i]);
        if (!text.everything) binding = text.map;
      }
      out += mpilaunch::format(
          "\t\t<process rank={} app_idx={} local_rank={} node_rank={} binding={}>\n", ranks[i],
          app_of(app_of_rank, ranks[i]), i, i, binding);
    }
    out += "\t</host>\n";
  }
  // mpirun 4.1.4 gives the locality when the first node's first rank is bound in its map, so
  // only on its own node (measured: -H vm:1,node2:1 gives it, -H node1:1,node2:1 stops here).
  if (!bound || map.node_count() == 0 || nodes.front().remote || dropped_on(bindings, 0) ||
      map.ranks_on(0).empty())
    return out;
  out += "\t<locality>\n";
  const std::vector<int>& first = map.ranks_on(0);
  const std::vector<std::size_t> order = listed(map, bindings, 0);
  for (std::size_t k = 1; k < order.size(); ++k)
    out += mpilaunch::format(
        "\t\t<rank={} rank={} locality={}>\n", first[order[0]], first[order[k]],
        relative_locality_text(topology_of(0), pus_of(0, order[0]), pus_of(0, order[k])));
  out += "\t</locality>\n</map>\n";
  return out;
}

}  // namespace mpilaunch
