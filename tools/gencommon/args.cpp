#include "args.h"

#include <iostream>
#include <vector>

namespace ipusim::gen {

std::optional<GenArgs> parse_args(int argc, char** argv, const std::string& tool, const std::string& program,
                                  std::initializer_list<Option> outputs) {
  std::vector<Option> required{{"--yaml", "SRC"}, {"--target", "T"}};
  required.insert(required.end(), outputs.begin(), outputs.end());
  std::string usage = "usage: " + program;
  for (const Option& o : required) usage += std::string(" ") + o.name + " " + o.metavar;
  usage += " [--source-name NAME] [--check]\n";
  const auto bad = [&](const std::string& problem) -> std::optional<GenArgs> {
    std::cerr << tool << ": " << problem << "\n" << usage;
    return std::nullopt;
  };

  GenArgs args;
  std::map<std::string, std::string> values;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      args.check = true;
      continue;
    }
    bool known = a == "--source-name";
    for (const Option& o : required) known = known || a == o.name;
    if (!known) return bad("unknown argument '" + a + "'");
    if (i + 1 >= argc) return bad(a + " needs a value");
    values[a] = argv[++i];
  }
  for (const Option& o : required)
    if (!values.count(o.name)) return bad(std::string(o.name) + " is missing");
  for (const Option& o : outputs) args.outputs[o.name] = values[o.name];
  args.yaml = values["--yaml"];
  args.target = values["--target"];
  args.source = values.count("--source-name") ? values["--source-name"] : args.yaml;
  return args;
}

}  // namespace ipusim::gen
