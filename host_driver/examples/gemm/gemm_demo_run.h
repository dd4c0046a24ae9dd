// The GEMM demo's body (gemm_demo_run.cpp): opens the device at `locator`, runs
// gemm_host.elf on IPU 0 of its board, checks C and prints the figures. Returns the
// process exit status: 0 all bit-exact, 1 a mismatch or a driver error (printed).
#pragma once

#include <string>

int run_gemm_demo(const std::string& locator, const std::string& elf_path, unsigned threads);
