// What the ranks see: exported variables, MCA parameters, the PMI interface, the directory.
#include <string>
#include <utility>

#include "common/text_format.hpp"

#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {

void add_environment_options(std::vector<OptionSpec>& t) {
  t.push_back({{"-x"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0].empty() || v[0][0] == '=')
                   return bad_option(mpilaunch::format("-x '{}': give NAME or NAME=value", v[0]));
                 o.exports.emplace_back(v[0]);
                 return {};
               }});
  t.push_back({{"--mca", "-mca", "--gmca", "-gmca"}, 2, [](Options& o, const Values& v) -> Status {
                 if (v[0].empty()) return bad_option("--mca needs a parameter name and a value");
                 o.mca.emplace_back(std::string(v[0]), std::string(v[1]));
                 return {};
               }});
  // MCA parameter files (mpirun 4.1.4: the last --am, the last --tune counts).
  t.push_back({{"--am", "-am"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0].empty()) return bad_option("--am needs a file name");
                 o.am = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--tune", "-tune"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0].empty()) return bad_option("--tune needs a file name");
                 o.tune = std::string(v[0]);
                 return {};
               }});
  t.push_back(
      {{"--pmi", "-pmi"}, 1, [](Options& o, const Values& v) -> Status {
         if (v[0] == "auto") {
           o.pmi = PmiKind::Auto;
         } else if (v[0] == "pmix") {
           o.pmi = PmiKind::Pmix;
         } else if (v[0] == "pmi1" || v[0] == "pmi") {
           o.pmi = PmiKind::Pmi1;
         } else if (v[0] == "pmi2") {
           o.pmi = PmiKind::Pmi2;
         } else {
           return bad_option(mpilaunch::format(
               "--pmi={}: choose 'auto', 'pmix' (Open MPI), 'pmi1' or 'pmi2' (MPICH)", v[0]));
         }
         return {};
       }});
  // mpirun's install prefix: the ranks' PATH and LD_LIBRARY_PATH (agent/rank_env.hpp). One for
  // the whole job, as mpirun 4.1.4 uses only the first (a later context's: options.cpp).
  t.push_back({{"--index-argv-by-rank", "-index-argv-by-rank"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.index_argv_by_rank);
               }});
  t.push_back({{"--prefix", "-prefix"}, 1, [](Options& o, const Values& v) -> Status {
                 std::string dir(v[0]);
                 if (dir.empty() || dir[0] != '/')
                   return bad_option(mpilaunch::format(
                       "--prefix '{}': give the install prefix as an absolute directory "
                       "(mpirun 4.1.4 reads a relative one against two different directories)",
                       v[0]));
                 while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
                 if (dir == "/")
                   return bad_option(mpilaunch::format(
                       "--prefix {}: a prefix of slashes only names no install (mpirun refuses "
                       "it too)",
                       v[0]));
                 // mpirun 4.1.4 (measured) uses the first and ignores a second one.
                 if (o.prefix.empty())
                   o.prefix = std::move(dir);
                 else if (o.prefix != dir)
                   o.ignored_options.push_back(mpilaunch::format(
                       "--prefix {}: ignored, as mpirun 4.1.4 uses the first --prefix ({}) for "
                       "the whole job",
                       dir, o.prefix));
                 return {};
               }});
  // MPMD: one application context per line of the file (apply_appfile, read by run()).
  t.push_back({{"--app", "-app"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0].empty()) return bad_option("--app needs the name of an appfile");
                 if (!o.appfile.empty())
                   return bad_option("--app was given twice; give one appfile");
                 o.appfile = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--wdir", "-wdir", "--wd", "-wd"}, 1, [](Options& o, const Values& v) -> Status {
                 o.wdir = std::string(v[0]);
                 return {};
               }});
  // mpirun 4.1.4 (measured): the context's program is looked up in DIR first, then PATH, then
  // the working directory, on the ranks' node; the ranks' PATH is unchanged.
  t.push_back({{"--path", "-path"}, 1, [](Options& o, const Values& v) -> Status {
                 o.exec_path = std::string(v[0]);
                 o.path_given = true;
                 return {};
               }});
}

}  // namespace mpilaunch::launcher
