// cuda_util.h — error checks, device buffers and the JSON type of the
// evidence and benchmark code (internal).
#pragma once
#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusecert::kernels::util {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define FK_CHECK(x) ::fusecert::kernels::util::check((x), #x)

/// Owning device allocation (cudaMalloc).
class DevBuf {
 public:
  DevBuf() = default;
  explicit DevBuf(std::size_t bytes) : bytes_(bytes) {
    if (bytes) FK_CHECK(cudaMalloc(&p_, bytes));
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  ~DevBuf() {
    if (p_) cudaFree(p_);
  }
  void* get() const { return p_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* src) { FK_CHECK(cudaMemcpy(p_, src, bytes_, cudaMemcpyHostToDevice)); }
  void download(void* dst) const {
    FK_CHECK(cudaMemcpy(dst, p_, bytes_, cudaMemcpyDeviceToHost));
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// The JSON documents of the evidence, the benchmark and the distributed run:
/// nlohmann-json, keys in insertion order. A NaN or an infinity is written as
/// null (never as an invalid token such as `nan`).
using Json = nlohmann::ordered_json;

}  // namespace fusecert::kernels::util
