#include "runtime/host_convert.h"

#include "runtime/cpu/convert.h"

namespace ember::runtime {

void convert_elements(DType from, const void* src, DType to, void* dst, int64_t n) {
  cpu::dispatch_dtype(from, [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    cpu::dispatch_dtype(to, [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      const In* s = static_cast<const In*>(src);
      Out* d = static_cast<Out*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<Out, In>(s[i]);
    });
  });
}

}  // namespace ember::runtime
