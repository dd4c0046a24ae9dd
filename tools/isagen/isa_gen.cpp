// isa_gen (tools/isagen): turns the ISA source (hw/isa/xipu.yaml) into the checked-in files that firmware,
// the ISS, the driver and the docs use (isa_emit.h lists them).
//
//   isa_gen --yaml hw/isa/xipu.yaml --target isagen --header H --ld LD --iss-ops INC
//           --iss-csrs INC --doc MD [--source-name NAME] [--check]
//
// With --check nothing is written: the exit status is 1 (and the file is named) if an
// output differs from what the source generates, so a test keeps the checked-in copies
// current. Errors in the source name file, line and key, exit status 2.
#include "args.h"
#include "isa_emit.h"

int main(int argc, char** argv) {
  const auto args = ipusim::gen::parse_args(
      argc, argv, "isagen", "isa_gen",
      {{"--header", "H"}, {"--ld", "LD"}, {"--iss-ops", "INC"}, {"--iss-csrs", "INC"}, {"--doc", "MD"}});
  if (!args) return 2;
  const std::string& source = args->source;
  return ipusim::gen::run_generator("isagen", args->yaml, [&] {
    const isagen::Isa isa = isagen::parse_isa(args->yaml);
    return ipusim::gen::write_generated("isagen", source, args->target,
                                        {{(*args)["--header"], isagen::emit_header(isa, source)},
                                         {(*args)["--ld"], isagen::emit_ld(isa, source)},
                                         {(*args)["--iss-ops"], isagen::emit_iss_ops(isa, source)},
                                         {(*args)["--iss-csrs"], isagen::emit_iss_csrs(isa, source)},
                                         {(*args)["--doc"], isagen::emit_doc(isa, source)}},
                                        args->check);
  });
}
