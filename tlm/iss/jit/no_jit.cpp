// The translator's interface where it is not built (a host other than x86-64, or no
// Xbyak): tiles asking for it run the interpreter (CoreState says so once).
#include "iss/jit/jit.h"

namespace ipusim::iss {

namespace jit {

class CodeCache {};

bool available() { return false; }
std::shared_ptr<CodeCache> cache_for(const DecodedCode&, uint32_t, const Limits&) { return nullptr; }
Stats stats(const CodeCache&) { return {}; }

}  // namespace jit

void run_jit(Quantum& q, jit::CodeCache&, jit::Stats&) { run_loop<false>(q); }

}  // namespace ipusim::iss
