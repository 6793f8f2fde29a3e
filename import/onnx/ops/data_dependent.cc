// Ops whose outputs depend on the input values in ways no tensor op expresses, computed on the
// host from the inputs' contents (reading a device tensor runs the work pending behind it):
// Unique, NonMaxSuppression, TfIdfVectorizer (n-gram counts). Their
// index outputs are host values; Unique's values are a select of the input, so the tape sees them.
#include <algorithm>
#include <map>
#include <numeric>

#include "frontend/tensor.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

TensorData i64(const std::vector<int64_t>& v) { return TensorData(v); }

// Slices of `x` along `axis` (or its elements, axis < 0) as keys of type T, in order.
template <class T>
std::vector<std::vector<T>> slices(const TensorData& x, int64_t axis) {
  std::vector<T> v = x.to_vec<T>();
  std::vector<int64_t> d = x.shape().vector();
  if (axis < 0) {
    std::vector<std::vector<T>> out;
    for (const T& e : v) out.push_back({e});
    return out;
  }
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= d[i];
  for (size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  std::vector<std::vector<T>> out(d[axis]);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < d[axis]; ++k) {
      auto begin = v.begin() + (o * d[axis] + k) * inner;
      out[k].insert(out[k].end(), begin, begin + inner);
    }
  }
  return out;
}

// The first index of each distinct slice (in sorted or first-seen order), each slice's
// position among them, and their counts.
template <class T>
void unique_of(const std::vector<std::vector<T>>& keys, bool sorted, std::vector<int64_t>& first,
               std::vector<int64_t>& inverse, std::vector<int64_t>& counts) {
  std::map<std::vector<T>, int64_t> seen;  // key -> first index
  for (size_t i = 0; i < keys.size(); ++i) seen.emplace(keys[i], static_cast<int64_t>(i));
  for (const auto& [k, i] : seen) first.push_back(i);
  if (!sorted) std::sort(first.begin(), first.end());
  std::map<std::vector<T>, int64_t> slot;
  for (size_t j = 0; j < first.size(); ++j) slot[keys[first[j]]] = static_cast<int64_t>(j);
  counts.assign(first.size(), 0);
  for (const auto& k : keys) {
    inverse.push_back(slot[k]);
    ++counts[slot[k]];
  }
}

Outputs unique(NodeContext& c) {
  const TensorData& x = c.input(0).data();
  bool has_axis = c.has_attr("axis");
  int64_t axis = has_axis ? c.axis(c.attr_int("axis", 0), c.input(0).rank()) : -1;
  bool sorted = c.attr_int("sorted", 1);
  std::vector<int64_t> first, inverse, counts;
  if (is_float(x.dtype())) {
    unique_of(slices<double>(x, axis), sorted, first, inverse, counts);
  } else {
    unique_of(slices<int64_t>(x, axis), sorted, first, inverse, counts);
  }
  RawTensor t = c.tensor(0);
  if (!has_axis) t = ops::reshape(t, {c.input(0).numel()});
  RawTensor idx = detail::raw_from_data(i64(first), t.device());
  RawTensor y = ops::select(t, has_axis ? axis : 0, idx);
  return {Value::tensor(y), Value::known(i64(first)), Value::known(i64(inverse)),
          Value::known(i64(counts))};
}

struct Box {
  double y1, x1, y2, x2;
};

Box box_at(const std::vector<double>& b, size_t i, bool center) {
  const double* p = &b[4 * i];
  if (center) return {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
  return {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
}

double iou(const Box& a, const Box& b) {
  double h = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  double w = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  double inter = h * w;
  double area = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
  return area > 0 ? inter / area : 0;
}

// Greedy per batch and class: the highest-scoring boxes above the score threshold, each
// dropping the later ones that overlap it by more than the IoU threshold.
Outputs non_max_suppression(NodeContext& c) {
  std::vector<double> boxes = c.input(0).data().to_vec<double>();
  std::vector<double> scores = c.input(1).data().to_vec<double>();
  std::vector<int64_t> sd = c.input(1).dims();  // [batch, classes, boxes]
  int64_t max_out = c.has_input(2) ? static_cast<int64_t>(c.scalar_input(2)) : 0;
  double iou_max = c.has_input(3) ? c.scalar_input(3) : 0;
  bool has_score_min = c.has_input(4);
  double score_min = has_score_min ? c.scalar_input(4) : 0;
  bool center = c.attr_int("center_point_box", 0);
  std::vector<int64_t> out;
  for (int64_t b = 0; b < sd[0]; ++b) {
    for (int64_t k = 0; k < sd[1]; ++k) {
      const double* s = &scores[(b * sd[1] + k) * sd[2]];
      std::vector<int64_t> order(sd[2]);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        if (has_score_min && s[i] <= score_min) break;
        Box bi = box_at(boxes, b * sd[2] + i, center);
        bool drop = false;
        for (int64_t j : kept)
          drop = drop || iou(bi, box_at(boxes, b * sd[2] + j, center)) > iou_max;
        if (drop) continue;
        kept.push_back(i);
        out.insert(out.end(), {b, k, i});
      }
    }
  }
  int64_t n = static_cast<int64_t>(out.size() / 3);
  return {Value::known(TensorData(out, Shape{n, 3}))};
}

// The n-grams of the pool (integers): each tuple's position among the pool's n-grams.
std::map<std::vector<int64_t>, int64_t> ngram_pool(NodeContext& c) {
  std::vector<int64_t> pool = c.attr_ints("pool_int64s"), starts = c.attr_ints("ngram_counts");
  std::map<std::vector<int64_t>, int64_t> grams;
  int64_t index = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t n = static_cast<int64_t>(k) + 1;
    int64_t end = k + 1 < starts.size() ? starts[k + 1] : static_cast<int64_t>(pool.size());
    for (int64_t at = starts[k]; at + n <= end; at += n) {
      grams[std::vector<int64_t>(pool.begin() + at, pool.begin() + at + n)] = index++;
    }
  }
  return grams;
}

// Term frequencies of the pool's n-grams (min..max items, up to max_skip_count items skipped
// between them) in each row, weighted as the mode asks.
Outputs tfidf(NodeContext& c) {
  const TensorData& x = c.input(0).data();
  std::vector<int64_t> v = x.to_vec<int64_t>(), dims = c.input(0).dims();
  int64_t rows = dims.size() == 2 ? dims[0] : 1, len = dims.back();
  std::vector<int64_t> out_index = c.attr_ints("ngram_indexes");
  int64_t width = *std::max_element(out_index.begin(), out_index.end()) + 1;
  auto grams = ngram_pool(c);
  int64_t min_n = c.attr_int("min_gram_length", 1), max_n = c.attr_int("max_gram_length", 1);
  int64_t max_skip = c.attr_int("max_skip_count", 0);
  std::vector<double> counts(rows * width, 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row = &v[r * len];
    for (int64_t n = min_n; n <= max_n; ++n) {
      for (int64_t skip = 0; skip <= (n == 1 ? 0 : max_skip); ++skip) {
        for (int64_t i = 0; i + (n - 1) * (skip + 1) < len; ++i) {
          std::vector<int64_t> gram;
          for (int64_t j = 0; j < n; ++j) gram.push_back(row[i + j * (skip + 1)]);
          auto it = grams.find(gram);
          if (it != grams.end()) counts[r * width + out_index[it->second]] += 1;
        }
      }
    }
  }
  std::string mode = c.attr_string("mode", "TF");
  std::vector<float> weights = c.attr_floats("weights");
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < out_index.size(); ++j) {
      double& cnt = counts[r * width + out_index[j]];
      double w = weights.empty() ? 1.0 : weights[j];
      if (mode == "IDF") cnt = cnt > 0 ? w : 0;
      if (mode == "TFIDF") cnt *= w;
    }
  }
  std::vector<int64_t> out_dims =
      dims.size() == 2 ? std::vector<int64_t>{rows, width} : std::vector<int64_t>{width};
  std::vector<float> f(counts.begin(), counts.end());
  return {Value::known(TensorData(f, Shape(out_dims)))};
}

std::string check_tfidf(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "pool_strings") return "string pools not supported";
  }
  return "";
}

}  // namespace

void register_data_dependent(Registry& r) {
  r.add("Unique", {unique, {"axis", "sorted"}});
  r.add("NonMaxSuppression", {non_max_suppression, {"center_point_box"}});
  r.add("TfIdfVectorizer",
        {tfidf,
         {"max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts",
          "ngram_indexes", "pool_int64s", "pool_strings", "weights"},
         check_tfidf});
}

}  // namespace ember::onnx_import
