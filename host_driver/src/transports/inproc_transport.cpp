// In-process transport (inproc_transport.h).
#include "inproc_transport.h"

#include <sys/mman.h>

#include <stdexcept>

#include "console_queue.h"
#include "ipudrv/errors.h"

namespace ipudrv::detail {
namespace {

using ipusim::host_if::DeviceLink;

class InprocMemory : public MappedHostMemory {
 public:
  InprocMemory(DeviceLink& link, uint64_t bus, size_t bytes) : MappedHostMemory(bus, bytes), link_(link) {
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw TransportError("host memory: mmap of " + std::to_string(size_) + " bytes failed");
    data_ = static_cast<std::byte*>(p);
    try {
      link_.map_host_memory(bus_, {data_, size_});
    } catch (const std::exception& e) {
      throw TransportError(std::string("host memory: the device refused the mapping: ") + e.what());
    }
  }
  ~InprocMemory() override {
    try {
      link_.unmap_host_memory(bus_);
    } catch (...) {
      // The device forgot the range already (it cannot, by contract); the memory goes anyway.
    }
  }

 private:
  DeviceLink& link_;
};

// Memory the caller owns, registered with the model as it is (no copy, no mmap).
class InprocCallerMemory : public HostMemory {
 public:
  InprocCallerMemory(DeviceLink& link, std::span<std::byte> bytes)
      : link_(link), bytes_(bytes), bus_(allocate_bus_range(round_to_pages(bytes.size()))) {
    try {
      link_.map_host_memory(bus_, bytes_);
    } catch (const std::exception& e) {
      throw TransportError(std::string("caller memory: the device refused the mapping: ") + e.what());
    }
  }
  ~InprocCallerMemory() override {
    try {
      link_.unmap_host_memory(bus_);
    } catch (...) {
    }
  }
  std::span<std::byte> bytes() override { return bytes_; }
  uint64_t bus_addr() const override { return bus_; }

 private:
  DeviceLink& link_;
  std::span<std::byte> bytes_;
  uint64_t bus_;
};

class InprocTransport : public Transport {
 public:
  InprocTransport(std::shared_ptr<void> owner, DeviceLink& link, std::string description)
      : owner_(std::move(owner)), link_(link), description_(std::move(description)) {}
  ~InprocTransport() override {
    link_.set_interrupt_handler({});
    set_console(ConsoleRoute::kDevice);  // the model's own output again, before the queue goes
  }

  uint32_t read32(uint32_t offset) override { return link_.read32(offset); }
  void write32(uint32_t offset, uint32_t value) override { link_.write32(offset, value); }
  std::unique_ptr<HostMemory> alloc_host_memory(size_t bytes) override {
    const size_t size = round_to_pages(bytes);
    return std::make_unique<InprocMemory>(link_, allocate_bus_range(size), size);
  }
  std::unique_ptr<HostMemory> map_caller_memory(std::span<std::byte> bytes) override {
    return std::make_unique<InprocCallerMemory>(link_, bytes);
  }
  void set_interrupt_handler(std::function<void()> handler) override {
    link_.set_interrupt_handler(std::move(handler));
  }
  std::string describe() const override { return description_; }
  bool in_process() const override { return true; }
  void set_trace_file(const std::string& path) override {
    try {
      link_.set_trace_file(path);
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("set_trace: ") + e.what());
    }
  }
  std::vector<SuperstepStats> supersteps(uint32_t ipu) override { return link_.supersteps(ipu); }
  void set_link_faults(const std::string& items) override {
    try {
      link_.set_link_faults(items);
    } catch (const std::exception& e) {
      throw UsageError(std::string("set_link_faults: ") + e.what());
    }
  }
  std::vector<LinkStats> link_stats() override { return link_.link_stats(); }
  // The queue stops collecting before the handler changes: a device thread waiting for
  // room in it holds the model's console, which set_console_handler needs.
  void set_console(ConsoleRoute route) override {
    console_.set_collecting(route == ConsoleRoute::kCollect);
    if ((route != ConsoleRoute::kDevice) == console_installed_) return;
    console_installed_ = route != ConsoleRoute::kDevice;
    if (console_installed_)
      link_.set_console_handler([q = &console_](const ipusim::host_if::ConsoleLine& l) { q->push(l); });
    else
      link_.set_console_handler({});
  }
  void set_console_pending(std::function<void()> pending) override { console_.set_pending(std::move(pending)); }
  ConsoleTake take_console() override {
    ConsoleTake t;
    for (ipusim::host_if::ConsoleLine& l : console_.take()) t.lines.push_back(std::move(l));  // the same record
    t.dropped = console_.dropped();
    t.more = !console_.empty();
    return t;
  }

 private:
  std::shared_ptr<void> owner_;
  DeviceLink& link_;
  std::string description_;
  ipusim::wire::ConsoleQueue console_;
  bool console_installed_ = false;  // console_ is the link's console handler
};

}  // namespace

std::unique_ptr<Transport> make_inproc_transport(std::shared_ptr<void> owner, DeviceLink& link,
                                                 std::string description) {
  return std::make_unique<InprocTransport>(std::move(owner), link, std::move(description));
}

}  // namespace ipudrv::detail
