// Hosts and how agents reach them: -H, host files, the launcher kind, ssh.
#include "common/text_format.hpp"

#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {

void add_host_options(std::vector<OptionSpec>& t) {
  t.push_back({{"-H", "--host", "-host"}, 1, [](Options& o, const Values& v) -> Status {
                 o.hosts.emplace_back(v[0]);
                 return {};
               }});
  t.push_back({{"--hostfile", "-hostfile", "--machinefile", "-machinefile", "-f"},
               1,
               [](Options& o, const Values& v) -> Status {
                 // mpirun 4.1.4 takes one host file per application context.
                 if (!o.context_hostfile.empty())
                   return bad_option(
                       "--hostfile was given twice; give one host file (per application "
                       "context)");
                 o.context_hostfile = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--launcher", "-launcher"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0] == "local") {
                   o.launcher = LauncherKind::Local;
                 } else if (v[0] == "ssh" || v[0] == "rsh") {
                   o.launcher = LauncherKind::Ssh;
                 } else if (v[0] == "srun" || v[0] == "slurm") {
                   o.launcher = LauncherKind::Srun;
                 } else {
                   return bad_option(
                       mpilaunch::format("--launcher={}: choose 'local', 'ssh' or 'srun'", v[0]));
                 }
                 return {};
               }});
  t.push_back({{"--deploy-agent"}, 1, [](Options& o, const Values& v) -> Status {
                 const auto mode = parse_deploy_mode(v[0]);
                 if (!mode)
                   return bad_option(mpilaunch::format(
                       "--deploy-agent={}: choose 'auto', 'always' or 'never'", v[0]));
                 o.deploy_agent = *mode;
                 return {};
               }});
  t.push_back({{"--agent-path"}, 1, [](Options& o, const Values& v) -> Status {
                 o.agent_path = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--ssh-config", "-F"}, 1, [](Options& o, const Values& v) -> Status {
                 o.ssh_config = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--connect-timeout"}, 1, [](Options& o, const Values& v) -> Status {
                 auto s = seconds("--connect-timeout", v[0]);
                 if (!s) return s.error();
                 if (s.value() <= 0)
                   return bad_option("--connect-timeout must be more than 0 seconds");
                 o.connect_timeout_seconds = s.value();
                 return {};
               }});
  t.push_back({{"--wait-for-hosts"}, 1, [](Options& o, const Values& v) -> Status {
                 auto s = seconds("--wait-for-hosts", v[0]);
                 if (!s) return s.error();
                 if (s.value() < 0) return bad_option("--wait-for-hosts must be 0 or more seconds");
                 o.wait_for_hosts_seconds = s.value();
                 return {};
               }});
  t.push_back({{"--ssh-fanout"}, 1, [](Options& o, const Values& v) -> Status {
                 auto n = positive_int("--ssh-fanout", v[0], 1 << 16);
                 if (!n) return n.error();
                 o.ssh_fanout = n.value();
                 return {};
               }});
  t.push_back(
      {{"--default-hostfile", "-default-hostfile"}, 1, [](Options& o, const Values& v) -> Status {
         o.default_hostfile = std::string(v[0]);
         return {};
       }});
}

}  // namespace mpilaunch::launcher
