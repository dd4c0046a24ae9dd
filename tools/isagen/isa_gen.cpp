// isa_gen (tools/isagen): turns the ISA source (hw/isa/xipu.yaml) into the checked-in files that firmware,
// the ISS, the driver and the docs use (isa_emit.h lists them).
//
//   isa_gen --yaml hw/isa/xipu.yaml --header H --ld LD --iss-ops INC --iss-csrs INC --doc MD
//          [--source-name NAME] [--check]
//
// With --check nothing is written: the exit status is 1 (and the file is named) if an
// output differs from what the source generates, so a test keeps the checked-in copies
// current. Errors in the source name file, line and key, exit status 2.
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "isa_emit.h"

namespace {

constexpr const char* kUsage =
    "usage: isa_gen --yaml SRC --header H --ld LD --iss-ops INC --iss-csrs INC --doc MD [--source-name NAME] [--check]\n";

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;  // option -> value
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      check = true;
    } else if (a.rfind("--", 0) == 0 && i + 1 < argc) {
      args[a] = argv[++i];
    } else {
      std::cerr << "isagen: bad argument '" << a << "'\n" << kUsage;
      return 2;
    }
  }
  for (const char* need : {"--yaml", "--header", "--ld", "--iss-ops", "--iss-csrs", "--doc"})
    if (!args.count(need)) {
      std::cerr << "isagen: " << need << " is missing\n" << kUsage;
      return 2;
    }
  const std::string yaml = args["--yaml"];
  const std::string source = args.count("--source-name") ? args["--source-name"] : yaml;
  return ipusim::gen::run_generator("isagen", yaml, [&] {
    const isagen::Isa isa = isagen::parse_isa(yaml);
    return ipusim::gen::write_generated("isagen", source, "isagen",
                                        {{args["--header"], isagen::emit_header(isa, source)},
                                         {args["--ld"], isagen::emit_ld(isa, source)},
                                         {args["--iss-ops"], isagen::emit_iss_ops(isa, source)},
                                         {args["--iss-csrs"], isagen::emit_iss_csrs(isa, source)},
                                         {args["--doc"], isagen::emit_doc(isa, source)}},
                                        check);
  });
}
