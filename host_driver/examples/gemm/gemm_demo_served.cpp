// gemm_demo_served: the GEMM demo through a simulator server. Starts
// `ipusim serve --config CONFIG --socket DIR/ipu.sock` as a child process (DIR a fresh
// private folder), runs the demo against unix:DIR/ipu.sock, then stops the server with
// SIGTERM and checks it exited cleanly.
//
//   gemm_demo_served [--config PATH] [--ipusim PATH] [--elf PATH]
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gemm_demo_run.h"

extern char** environ;

int main(int argc, char** argv) {
  std::string config = IPUSIM_SOURCE_DIR "/configs/m2000.yaml";
  std::string ipusim = IPUSIM_BINARY_DIR "/bin/ipusim";
  std::string elf = IPUSIM_FIRMWARE_DIR "/gemm_host.elf";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--config") config = argv[i + 1];
    else if (a == "--ipusim") ipusim = argv[i + 1];
    else if (a == "--elf") elf = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--config PATH] [--ipusim PATH] [--elf PATH]\n", argv[0]);
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: %s [--config PATH] [--ipusim PATH] [--elf PATH]\n", argv[0]);
    return 2;
  }
  char dir_template[] = "/tmp/ipusim-demo-XXXXXX";
  if (!mkdtemp(dir_template)) {
    std::perror("gemm_demo_served: mkdtemp");
    return 1;
  }
  const std::string socket = std::string(dir_template) + "/ipu.sock";
  std::vector<std::string> args = {ipusim, "serve", "--config", config, "--socket", socket, "--quiet"};
  std::vector<char*> cargs;
  for (auto& s : args) cargs.push_back(s.data());
  cargs.push_back(nullptr);
  pid_t server = 0;
  if (int err = posix_spawn(&server, ipusim.c_str(), nullptr, nullptr, cargs.data(), environ); err != 0) {
    std::fprintf(stderr, "gemm_demo_served: cannot start %s: %s\n", ipusim.c_str(), std::strerror(err));
    return 1;
  }
  std::printf("gemm_demo_served: started `ipusim serve` (pid %d) on %s\n", int(server), socket.c_str());
  // The server creates the socket once the model is elaborated.
  int status = 0;
  bool up = false;
  for (int i = 0; i < 600 && !up; ++i) {
    struct stat st {};
    up = ::stat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
    if (!up && waitpid(server, &status, WNOHANG) == server) {
      std::fprintf(stderr, "gemm_demo_served: the server exited before listening (status %d)\n", status);
      return 1;
    }
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  int rc = up ? run_gemm_demo("unix:" + socket, elf, std::max(1u, std::thread::hardware_concurrency())) : 1;
  if (!up) std::fprintf(stderr, "gemm_demo_served: no socket at %s after 30 s\n", socket.c_str());
  kill(server, SIGTERM);
  waitpid(server, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "gemm_demo_served: the server ended with status %d\n", status);
    rc = rc ? rc : 1;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_template, ec);
  return rc;
}
