#include "optim/data_parallel.h"

#include "ir/error.h"

namespace ember::optim {
namespace {

// One all-reduce for a bucket of same-dtype gradients: flattened, joined, averaged, cut back.
void all_reduce_bucket(const std::vector<ParamId>& ids, GradientsParams& grads,
                       const dist::ProcessGroup& group) {
  std::vector<RawTensor> flat;
  std::vector<int64_t> sizes;
  std::vector<Shape> shapes;
  for (ParamId id : ids) {
    RawTensor g = *grads.get_raw(id);
    shapes.push_back(g.shape());
    sizes.push_back(g.shape().numel());
    flat.push_back(ops::reshape(g, {-1}));
  }
  RawTensor joined = flat.size() == 1 ? flat[0] : ops::cat(flat, 0);
  RawTensor mean = dist::all_reduce(joined, dist::ReduceOp::Mean, group);
  std::vector<RawTensor> parts =
      ids.size() == 1 ? std::vector<RawTensor>{mean} : ops::split_with_sizes(mean, sizes, 0);
  for (size_t i = 0; i < ids.size(); ++i)
    grads.register_raw(ids[i], ops::reshape(parts[i], shapes[i].vector()));
}

}  // namespace

GradientsParams DataParallel::sync(GradientsParams grads,
                                   const std::vector<ParamId>& module_order) const {
  if (group_.size() == 1) return grads;
  // Last to first: the order backward produces them.
  std::vector<ParamId> order;
  for (auto it = module_order.rbegin(); it != module_order.rend(); ++it) {
    if (grads.contains(*it)) order.push_back(*it);
  }
  if (order.size() != grads.size()) detail_throw_foreign(grads.size(), order.size());
  std::vector<ParamId> bucket;
  int64_t bytes = 0;
  DType dtype = DType::F32;
  for (ParamId id : order) {
    RawTensor g = *grads.get_raw(id);
    int64_t b = g.shape().numel() * static_cast<int64_t>(dtype_size(g.dtype()));
    if (!bucket.empty() && (g.dtype() != dtype || bytes + b > bucket_bytes_)) {
      all_reduce_bucket(bucket, grads, group_);
      bucket.clear();
      bytes = 0;
    }
    bucket.push_back(id);
    bytes += b;
    dtype = g.dtype();
  }
  if (!bucket.empty()) all_reduce_bucket(bucket, grads, group_);
  return grads;
}

void DataParallel::detail_throw_foreign(size_t grads, size_t known) {
  throw Error("DataParallel::sync: " + std::to_string(grads - known) + " of " +
              std::to_string(grads) +
              " gradients belong to parameters the module does not have (ranks would disagree "
              "on the buckets)");
}

}  // namespace ember::optim
