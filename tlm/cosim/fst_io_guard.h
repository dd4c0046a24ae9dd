// Verilator's FST writer (gtkwave's fstapi.c) ignores failed writes and later maps the
// files it wrote: on a full disk (or past RLIMIT_FSIZE) a mapped page past a short file's
// end raises SIGBUS. Its stdio writes and its mmap calls go through these instead
// (fst_io_redirect.h renames them in verilated_fst_c.cpp alone): a failed write is noted
// for the thread that made it, and a file too short for the mapping asked for is mapped
// as anonymous memory, so the writer runs on harmlessly to its close and FstWaveFile
// (wave_file.h) reports the error.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdio>

extern "C" {
size_t ipusim_fst_fwrite(const void* data, size_t size, size_t count, FILE* file);
int ipusim_fst_fputc(int c, FILE* file);
int ipusim_fst_fflush(FILE* file);
int ipusim_fst_fclose(FILE* file);
void* ipusim_fst_mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
}

namespace ipusim::cosim {

// The errno of this thread's first failed FST write since the last call, 0 if none; clears it.
int take_fst_io_error();

}  // namespace ipusim::cosim
