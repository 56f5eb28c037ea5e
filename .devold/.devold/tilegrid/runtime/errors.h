#pragma once
// What the runtime throws besides UserError and InternalError (tilegrid/ir/error.h) and
// CompileError (tilegrid/runtime/compiler.h). No CUDA headers needed.
#include <stdexcept>
#include <string>

namespace tilegrid::runtime {

// A driver call failed: carries the call, the CUresult (as an int) and its name and description.
class CudaError : public std::runtime_error {
 public:
  CudaError(std::string call, int result, std::string name, std::string text);
  const std::string& call() const { return call_; }
  int result() const { return result_; }

 private:
  std::string call_;
  int result_;
};

// There is no driver, or no device: nothing can launch. The message says which, in plain words.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tilegrid::runtime
