// configgen: turns the config schema (tlm/config/schema.yaml) into the checked-in code and
// docs that would otherwise spell every key again (schema.yaml's header lists them).
//
//   config_gen --yaml tlm/config/schema.yaml --target configgen --defaults H --reader INC
//             --writer INC --info-json INC --doc docs/config.md [--source-name NAME] [--check]
//
// With --check nothing is written: the exit status is 1 (and the file is named) if an
// output differs from what the schema generates. Errors in the schema name the file, line
// and key, exit status 2.
#include "args.h"
#include "generated_files.h"
#include "schema.h"

int main(int argc, char** argv) {
  using namespace ipusim::configgen;
  const auto args = ipusim::gen::parse_args(argc, argv, "config_gen", "config_gen",
                                            {{"--defaults", "H"},
                                             {"--reader", "INC"},
                                             {"--writer", "INC"},
                                             {"--info-json", "INC"},
                                             {"--doc", "MD"}});
  if (!args) return 2;
  const std::string& source = args->source;
  return ipusim::gen::run_generator("config_gen", args->yaml, [&] {
    const Schema s = parse_schema(args->yaml);
    const std::string& doc = (*args)["--doc"];
    return ipusim::gen::write_generated("config_gen", source, args->target,
                                        {{(*args)["--defaults"], emit_defaults_header(s, source)},
                                         {(*args)["--reader"], emit_reader(s, source)},
                                         {(*args)["--writer"], emit_writer(s, source)},
                                         {(*args)["--info-json"], emit_info_json(s, source)},
                                         {doc, emit_doc(s, source, doc, ipusim::gen::read_text(doc))}},
                                        args->check);
  });
}
