#include "frontend/detail/primitives.h"

#include <atomic>
#include <span>

#include "frontend/detail/stream.h"
#include "frontend/detail/tape.h"
#include "frontend/random_state.h"

namespace ember::prim {

using detail::Stream;
using ir::Builder;

namespace {

// Records a primitive reading `inputs` on the first input's device, extending the autodiff tape
// when one of them is tracked.
template <class F>
RawTensor on_inputs(std::span<const RawTensor* const> inputs, F&& build) {
  Stream& stream = Stream::of(inputs[0]->device());
  if (!detail::tracking(inputs)) return stream.record(std::forward<F>(build));
  ir::Node recorded;
  RawTensor out = stream.record([&](Builder& b, auto&& bind) {
    ir::ValueId id = build(b, bind);
    recorded = b.node(id);
    return id;
  });
  return detail::track(out, recorded, inputs);
}

template <class F>
RawTensor on(std::initializer_list<const RawTensor*> inputs, F&& build) {
  return on_inputs(std::span<const RawTensor* const>(inputs.begin(), inputs.size()),
                   std::forward<F>(build));
}

}  // namespace

RawTensor full(const Shape& shape, DType dtype, ir::Scalar value, const Device& device) {
  return Stream::of(device).record([&](Builder& b, auto&&) { return b.full(shape, dtype, value); });
}

RawTensor iota(const Shape& shape, DType dtype, int axis, const Device& device) {
  return Stream::of(device).record([&](Builder& b, auto&&) { return b.iota(shape, dtype, axis); });
}

RawTensor random(const Shape& shape, DType dtype, ir::RandomDist dist, double a, double b_,
                 const Device& device) {
  auto [seed, offset] = detail::take_random_offset(shape.numel());
  return Stream::of(device).record([&](Builder& b, auto&&) {
    return b.random(shape, dtype, ir::RandomAttrs{dist, a, b_, seed, offset});
  });
}

RawTensor from_data(const TensorData& data, const Device& device) {
  Stream& s = Stream::of(device);
  TensorType t{data.dtype(), data.shape()};
  return s.wrap(detail::backend_for(device).upload(t, data.bytes().data()));
}

RawTensor from_bytes(const void* data, DType dtype, const Shape& shape, const Device& device) {
  Stream& s = Stream::of(device);
  return s.wrap(detail::backend_for(device).upload(TensorType{dtype, shape}, data));
}

RawTensor unary(ir::UnaryFn fn, const RawTensor& x) {
  return on({&x}, [&](Builder& b, auto&& bind) { return b.unary(fn, bind(x)); });
}

RawTensor binary(ir::BinaryFn fn, const RawTensor& a, const RawTensor& c) {
  return on({&a, &c}, [&](Builder& b, auto&& bind) { return b.binary(fn, bind(a), bind(c)); });
}

RawTensor scalar_like(const RawTensor& x, ir::Scalar s, DType dtype) {
  return full(Shape::ones(x.rank()), dtype, s, x.device());
}

RawTensor binary_scalar(ir::BinaryFn fn, const RawTensor& x, const ir::Scalar& s,
                        bool scalar_first) {
  const RawTensor* inputs[] = {&x};
  if (detail::tracking(inputs)) {
    // The tape differentiates the binary node against tensors it knows: the scalar is one.
    RawTensor c = scalar_like(x, s, x.dtype());
    return scalar_first ? binary(fn, c, x) : binary(fn, x, c);
  }
  // One recording for the scalar's node and the op (the scalar is no user-visible tensor):
  // an eager-style step of scalar ops pays one stream lookup and one value per op, and a
  // scalar node per distinct constant.
  Stream& stream = Stream::of(x.device());
  return stream.record([&](Builder& b, auto&& bind) {
    ir::ValueId xv = bind(x);
    ir::ValueId c = stream.scalar_locked(b, x.rank(), x.dtype(), s);
    return scalar_first ? b.binary(fn, c, xv) : b.binary(fn, xv, c);
  });
}

RawTensor where(const RawTensor& cond, const RawTensor& a, const RawTensor& c) {
  return on({&cond, &a, &c},
            [&](Builder& b, auto&& bind) { return b.where(bind(cond), bind(a), bind(c)); });
}

RawTensor cast(const RawTensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return on({&x}, [&](Builder& b, auto&& bind) { return b.cast(bind(x), dtype); });
}

RawTensor reduce(ir::ReduceFn fn, const RawTensor& x, int axis, DType index_dtype) {
  return on({&x},
            [&](Builder& b, auto&& bind) { return b.reduce(fn, bind(x), axis, index_dtype); });
}

RawTensor reshape(const RawTensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  return on({&x}, [&](Builder& b, auto&& bind) { return b.reshape(bind(x), shape); });
}

RawTensor permute(const RawTensor& x, const std::vector<int>& perm) {
  return on({&x}, [&](Builder& b, auto&& bind) { return b.permute(bind(x), perm); });
}

RawTensor expand(const RawTensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  return on({&x}, [&](Builder& b, auto&& bind) { return b.expand(bind(x), shape); });
}

RawTensor slice(const RawTensor& x, const std::vector<int64_t>& starts,
                const std::vector<int64_t>& counts, const std::vector<int64_t>& steps) {
  return on({&x}, [&](Builder& b, auto&& bind) { return b.slice(bind(x), starts, counts, steps); });
}

RawTensor flip(const RawTensor& x, const std::vector<int>& axes) {
  return on({&x}, [&](Builder& b, auto&& bind) { return b.flip(bind(x), axes); });
}

RawTensor pad(const RawTensor& x, const std::vector<int64_t>& before,
              const std::vector<int64_t>& after, ir::Scalar value) {
  return on({&x}, [&](Builder& b, auto&& bind) { return b.pad(bind(x), before, after, value); });
}

RawTensor concat(const std::vector<RawTensor>& xs, int axis) {
  if (xs.empty()) {
    ir::Graph g;
    ir::Builder(g).concat({}, axis);  // throws the builder's error
  }
  std::vector<const RawTensor*> inputs;
  for (const RawTensor& x : xs) inputs.push_back(&x);
  return on_inputs(inputs, [&](Builder& b, auto&& bind) {
    std::vector<ir::ValueId> ids;
    for (const RawTensor& x : xs) ids.push_back(bind(x));
    return b.concat(ids, axis);
  });
}

RawTensor matmul(const RawTensor& a, const RawTensor& c) {
  return on({&a, &c}, [&](Builder& b, auto&& bind) { return b.matmul(bind(a), bind(c)); });
}

RawTensor conv(const RawTensor& x, const RawTensor& w, const ir::ConvAttrs& attrs) {
  return on({&x, &w}, [&](Builder& b, auto&& bind) { return b.conv(bind(x), bind(w), attrs); });
}

RawTensor attention(const RawTensor& q, const RawTensor& k, const RawTensor& v,
                    const ir::AttentionAttrs& attrs) {
  return on({&q, &k, &v},
            [&](Builder& b, auto&& bind) { return b.attention(bind(q), bind(k), bind(v), attrs); });
}

RawTensor lstm(const RawTensor& xp, const RawTensor& w, const RawTensor& h0, const RawTensor& c0,
               const ir::LstmAttrs& attrs) {
  return on({&xp, &w, &h0, &c0}, [&](Builder& b, auto&& bind) {
    return b.lstm(bind(xp), bind(w), bind(h0), bind(c0), attrs);
  });
}

RawTensor collective(const RawTensor& x, const ir::CollectiveAttrs& attrs) {
  return on({&x}, [&](Builder& b, auto&& bind) { return b.collective(bind(x), attrs); });
}

RawTensor gather(const RawTensor& x, int axis, const RawTensor& index) {
  return on({&x, &index},
            [&](Builder& b, auto&& bind) { return b.gather(bind(x), axis, bind(index)); });
}

RawTensor scatter_add(const RawTensor& x, int axis, const RawTensor& index,
                      const RawTensor& values) {
  return on({&x, &index, &values}, [&](Builder& b, auto&& bind) {
    return b.scatter_add(bind(x), axis, bind(index), bind(values));
  });
}

RawTensor sort(const RawTensor& x, int axis, bool descending, bool indices, DType index_dtype) {
  return on({&x}, [&](Builder& b, auto&& bind) {
    return b.sort(bind(x), axis, descending, indices, index_dtype);
  });
}

}  // namespace ember::prim
