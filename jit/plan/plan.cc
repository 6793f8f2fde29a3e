#include "jit/plan/plan.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/host/family.h"
#include "kernels/registry.h"

namespace ember::jit {
namespace {

using ir::OpKind;
using ir::ValueId;

// Ops that only reorder, regroup or repeat their input's elements.
bool is_layout_view(OpKind op) {
  return op == OpKind::Permute || op == OpKind::Reshape || op == OpKind::Expand;
}

bool is_cheap(OpKind op) {
  switch (op) {
    case OpKind::Reshape:
    case OpKind::Permute:
    case OpKind::Expand:
    case OpKind::Slice:
    case OpKind::Flip:
    case OpKind::Cast:
    case OpKind::Full:
    case OpKind::Iota:
      return true;
    default:
      return false;
  }
}

// EMBER_COLLECTIVES_EARLY=0 leaves collectives where they were recorded (after the whole
// backward pass, in a data-parallel step): the baseline that shows what overlapping them buys.
bool collectives_early() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_COLLECTIVES_EARLY");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return on;
}

class Planner {
 public:
  Planner(const ir::Graph& g, const std::vector<ValueId>& outputs, int max_bindings,
          FamilySet families)
      : g_(g), max_bindings_(max_bindings), families_(families) {
    int n = g.size();
    consumers_.resize(n);
    for (ValueId v = 0; v < n; ++v) {
      for (ValueId in : g.node(v).inputs) consumers_[in].push_back(v);
    }
    plan_.stored.assign(n, 0);
    plan_.producer.assign(n, -1);
    is_output_.assign(n, 0);
    for (ValueId o : outputs) is_output_[o] = 1;
  }

  Plan unfused() {
    for (ValueId v = 0; v < g_.size(); ++v) {
      if (g_.node(v).op == OpKind::Input) {
        plan_.stored[v] = 1;
        continue;
      }
      plan_.stored[v] = 1;
      new_kernel(v);
    }
    launch_collectives_early();
    return std::move(plan_);
  }

  Plan fused() {
    choose_stored();
    for (ValueId v = 0; v < g_.size(); ++v) {
      if (!plan_.stored[v] || g_.node(v).op == OpKind::Input) continue;
      place(v);
    }
    drop_internal_stores();
    launch_collectives_early();
    return std::move(plan_);
  }

 private:
  // Kernels whose results kernel k reads.
  std::vector<int> kernel_deps(int k) const {
    std::vector<int> deps;
    for (auto [root, expand] : roots_of(k)) {
      for (ValueId leaf : leaves_of(root, expand)) {
        int p = plan_.producer[leaf];
        if (p >= 0 && p != k) deps.push_back(p);
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    return deps;
  }

  // Collectives launch as soon as their operands are computed: each one, in recorded order (the
  // order every rank must run them in), goes right after the kernels it needs, and the kernels
  // nothing communicates come after. A data-parallel step's gradient buckets then travel while
  // the rest of the backward pass runs, instead of after all of it.
  void launch_collectives_early() {
    if (!collectives_early()) return;
    const int n = static_cast<int>(plan_.kernels.size());
    std::vector<int> collectives;
    for (int k = 0; k < n; ++k) {
      if (plan_.kernels[k].family->runs_external()) collectives.push_back(k);
    }
    if (collectives.empty()) return;
    std::vector<std::vector<int>> deps(n);
    for (int k = 0; k < n; ++k) deps[k] = kernel_deps(k);
    std::vector<int> order;
    std::vector<char> placed(n, 0);
    for (int c : collectives) {
      // Its unplaced ancestors, then it, in plan order (a topological order already).
      std::vector<char> need(n, 0);
      std::vector<int> stack{c};
      need[c] = 1;
      while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        for (int d : deps[u]) {
          if (!placed[d] && !need[d]) need[d] = 1, stack.push_back(d);
        }
      }
      for (int k = 0; k <= c; ++k) {
        if (need[k]) order.push_back(k), placed[k] = 1;
      }
    }
    for (int k = 0; k < n; ++k) {
      if (!placed[k]) order.push_back(k);
    }
    std::vector<int> position(n);
    std::vector<KernelPlan> kernels;
    for (int i = 0; i < n; ++i) {
      position[order[i]] = i;
      kernels.push_back(std::move(plan_.kernels[order[i]]));
    }
    plan_.kernels = std::move(kernels);
    for (int& p : plan_.producer) {
      if (p >= 0) p = position[p];
    }
  }

  // Puts stored value v into a kernel: one it can join, else a new one.
  void place(ValueId v) {
    fit_bindings(v);
    if (is_anchor(g_.node(v)) && (join_sibling(v) || join_anchor(v))) return;
    if (!is_anchor(g_.node(v)) && join(v, Fusion::Epilogue)) return;
    if (!is_anchor(g_.node(v)) && join(v, Fusion::Elementwise)) return;
    new_kernel(v);
  }

  // The stored values (and anchors) kernel roots read: (root, whether its own expression is
  // evaluated in the kernel) as roots_of gives them.
  std::vector<ValueId> leaves_of(ValueId root, bool expand) const {
    std::vector<ValueId> out;
    if (!expand && (plan_.stored[root] || is_anchor(node(root)))) return {root};
    walk(root, {}, [&](ValueId leaf, bool) { out.push_back(leaf); });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  std::vector<ValueId> own_leaves(ValueId v) const {
    if (!is_anchor(node(v))) return leaves_of(v, true);
    std::vector<ValueId> out;
    for (ValueId in : node(v).inputs) {
      for (ValueId l : leaves_of(in, false)) out.push_back(l);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // A value whose own expression reads more stored values than a kernel may bind gets its
  // widest inline operands stored first (each planned as a kernel now: nothing read them as
  // stored values before, and their inputs are all ready). A wide concatenation, which the
  // frontend builds as a tree, is cut this way into kernels the device can bind.
  void fit_bindings(ValueId v) {
    while (static_cast<int>(own_leaves(v).size()) + 1 > max_bindings_) {
      ValueId widest = -1;
      size_t most = 1;
      for (ValueId in : node(v).inputs) {
        if (plan_.stored[in] || is_anchor(node(in)) || inlined_by_a_kernel(in)) continue;
        size_t n = leaves_of(in, true).size();
        if (n > most) most = n, widest = in;
      }
      if (widest < 0) return;  // nothing left to cut: the device reports the limit
      plan_.stored[widest] = 1;
      place(widest);
    }
  }

  // Whether a kernel already planned evaluates u inline: storing u now would make it read u
  // before u's own (later) kernel wrote it.
  bool inlined_by_a_kernel(ValueId u) {
    plan_.stored[u] = 1;  // a stored u is a leaf of every walk that reaches it
    bool found = false;
    for (int k = 0; k < static_cast<int>(plan_.kernels.size()) && !found; ++k) {
      for (auto [root, expand] : roots_of(k)) {
        auto leaves = leaves_of(root, expand);
        if (std::binary_search(leaves.begin(), leaves.end(), u)) found = true;
      }
    }
    plan_.stored[u] = 0;
    return found;
  }

  // Bindings kernel k would have with v among its values: what it reads from memory (not what
  // it computes itself) and what it stores.
  bool fits(int k, const std::vector<ValueId>& extra_leaves) const {
    std::vector<ValueId> reads = kernel_reads_[k];
    for (ValueId l : extra_leaves) {
      if (plan_.producer[l] != k) reads.push_back(l);
    }
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    return static_cast<int>(reads.size() + plan_.kernels[k].outputs.size()) + 1 <= max_bindings_;
  }

  void add_reads(int k, const std::vector<ValueId>& leaves) {
    for (ValueId l : leaves) {
      if (plan_.producer[l] != k) kernel_reads_[k].push_back(l);
    }
    std::sort(kernel_reads_[k].begin(), kernel_reads_[k].end());
    kernel_reads_[k].erase(std::unique(kernel_reads_[k].begin(), kernel_reads_[k].end()),
                           kernel_reads_[k].end());
  }

  // Reductions and matmul results consumed only inside their own kernel never touch memory.
  void drop_internal_stores() {
    std::vector<char> read_elsewhere(g_.size(), 0);
    for (size_t k = 0; k < plan_.kernels.size(); ++k) {
      auto mark = [&](ValueId leaf, bool) {
        if (plan_.producer[leaf] != static_cast<int>(k)) read_elsewhere[leaf] = 1;
      };
      for (auto [root, expand] : roots_of(static_cast<int>(k))) {
        if (!expand && (plan_.stored[root] || is_anchor(node(root)))) {
          mark(root, true);
        } else {
          walk(root, {}, mark);
        }
      }
    }
    for (KernelPlan& kp : plan_.kernels) {
      std::vector<ValueId> kept;
      for (ValueId v : kp.outputs) {
        bool internal = is_anchor(node(v)) && !is_output_[v] && !read_elsewhere[v] &&
                        kp.family->fusion() == Fusion::Epilogue && kp.outputs.size() > 1;
        if (internal) {
          plan_.stored[v] = 0;
        } else {
          kept.push_back(v);
        }
      }
      kp.outputs = std::move(kept);
    }
  }

  // The values whose expressions kernel k evaluates: its stored outputs, and the operands of its
  // reductions and anchor.
  // (value, whether its own expression is evaluated here) pairs.
  std::vector<std::pair<ValueId, bool>> roots_of(int k) const {
    const KernelPlan& kp = plan_.kernels[k];
    std::vector<std::pair<ValueId, bool>> roots;
    for (ValueId v : kp.outputs) {
      if (!is_anchor(node(v))) roots.push_back({v, true});
    }
    for (ValueId r : kp.reductions) roots.push_back({node(r).inputs[0], false});
    if (kp.anchor >= 0) {
      for (ValueId in : node(kp.anchor).inputs) roots.push_back({in, false});
    }
    return roots;
  }

  const ir::Node& node(ValueId v) const { return g_.node(v); }

  void choose_stored() {
    int n = g_.size();
    for (ValueId v = 0; v < n; ++v) {
      if (node(v).op == OpKind::Input || is_anchor(node(v)) || is_output_[v]) plan_.stored[v] = 1;
    }
    // First the operands that anchors read many times per output, then large expressions: an
    // expression that ends in such an operand counts from it, not through it (else a transpose
    // of a stored activation, read by a weight gradient, looks large and is stored a second
    // time).
    store_reread_operands();
    // size: primitives of v's inline expression; work: those a consumer recomputing v repeats
    // (constants are literals, reshapes and expands only index arithmetic).
    std::vector<int> size(n, 0), work(n, 0);
    for (ValueId v = 0; v < n; ++v) {
      if (plan_.stored[v]) continue;
      OpKind op = node(v).op;
      size[v] = 1;
      work[v] = op == OpKind::Full || op == OpKind::Reshape || op == OpKind::Expand ? 0 : 1;
      for (ValueId in : node(v).inputs) {
        if (plan_.stored[in]) continue;
        size[v] += size[in];
        work[v] += work[in];
      }
      if (consumers_[v].size() >= 2 && work[v] > kMaxRecomputeOps) plan_.stored[v] = 1;
      if (size[v] > kMaxInlineOps) plan_.stored[v] = 1;
    }
  }

  // Operands read many times per output are stored unless they are index arithmetic over
  // stored values (that the family can read as they are).
  void store_reread_operands() {
    for (ValueId v = 0; v < g_.size(); ++v) {
      const Family& family = family_for(node(v), families_);
      if (!family.rereads_operands()) continue;
      for (ValueId in : node(v).inputs) {
        if (family.stores_operands()) {
          plan_.stored[in] = 1;
        } else if (family.runs_on_host()) {
          // The primitive reads views in place, anything else from memory.
          while (!plan_.stored[in] && is_host_view(node(in).op)) in = node(in).inputs[0];
          plan_.stored[in] = 1;
        } else if (!plan_.stored[in] && !cheap_tree(in)) {
          // A permute, reshape or broadcast of an expression: the expression is stored in its
          // own order (coalesced) and read through the view, instead of writing the view
          // (a weight gradient's transposed activation, recomputed in the backward pass).
          // So is a slice of at least a third of its input (q, k or v cut from one packed
          // projection): the projection is stored once, as its product's epilogue, and read
          // in place, instead of each slice written out with the bias added again.
          ValueId base = in;
          while (!plan_.stored[base] && (is_layout_view(node(base).op) || is_large_slice(base)))
            base = node(base).inputs[0];
          plan_.stored[base] = 1;
        }
        if (!plan_.stored[in] && family.stores_operand(g_, v, in, plan_.stored)) {
          plan_.stored[in] = 1;
        }
      }
    }
  }

  // A slice with unit steps keeping at least a third of its input's elements.
  bool is_large_slice(ValueId v) const {
    const ir::Node& n = node(v);
    if (n.op != OpKind::Slice) return false;
    for (int64_t step : n.get<ir::SliceAttrs>().steps) {
      if (step != 1) return false;
    }
    return 3 * n.type.shape.numel() >= g_.type(n.inputs[0]).shape.numel();
  }

  bool cheap_tree(ValueId v) const {
    if (plan_.stored[v]) return true;
    if (!is_cheap(node(v).op)) return false;
    for (ValueId in : node(v).inputs) {
      if (!cheap_tree(in)) return false;
    }
    return true;
  }

  // Walks the inline expression of v. Leaves are stored values and anchors. `on_leaf(leaf,
  // same_index)` gets whether the path from v to the leaf is elementwise-only over shapes in
  // `shapes` (so the leaf is needed at v's own index, or its row's).
  void walk(ValueId v, const std::vector<Shape>& shapes,
            const std::function<void(ValueId, bool)>& on_leaf) const {
    std::vector<std::pair<ValueId, bool>> stack{{v, true}};
    std::vector<char> seen(g_.size(), 0);
    bool first = true;
    while (!stack.empty()) {
      auto [u, aligned] = stack.back();
      stack.pop_back();
      if (!first && (plan_.stored[u] || is_anchor(node(u)))) {
        on_leaf(u, aligned);
        continue;
      }
      first = false;
      if (seen[u] & (aligned ? 2 : 1)) continue;
      seen[u] |= aligned ? 2 : 1;
      auto in_shapes = [&](const Shape& s) {
        return std::find(shapes.begin(), shapes.end(), s) != shapes.end();
      };
      // An expand between two of the kernel's shapes (a row's reduction broadcast along the
      // row, as autodiff writes it) reads the leaf at its row's index, as a broadcasting binary
      // op would.
      // So does a reshape between two of them of one size (a row's value as a vector of rows,
      // which a reduction over all rows reads): the linear index, and so the row, is the same.
      const Shape& from =
          node(u).inputs.empty() ? node(u).type.shape : node(node(u).inputs[0]).type.shape;
      bool view = (node(u).op == OpKind::Expand && in_shapes(from)) ||
                  (node(u).op == OpKind::Reshape && in_shapes(from) &&
                   from.numel() == node(u).type.shape.numel());
      bool ew = (ir::is_elementwise(node(u).op) || view) && in_shapes(node(u).type.shape);
      for (ValueId in : node(u).inputs) stack.push_back({in, aligned && ew});
    }
  }

  // Whether every leaf of v is ready before kernel k launches, or is one of `provided` reached
  // along an aligned path.
  bool can_join(ValueId v, int k, const std::vector<ValueId>& provided,
                const std::vector<Shape>& shapes, bool* touches_provided) const {
    bool ok = true;
    *touches_provided = false;
    const std::vector<ValueId>& totals = plan_.kernels[k].totals;
    walk(v, shapes, [&](ValueId leaf, bool aligned) {
      if (std::find(provided.begin(), provided.end(), leaf) != provided.end()) {
        ok = ok && aligned;
        // A total is known after the kernel's last row: only values of its shape read it.
        if (std::find(totals.begin(), totals.end(), leaf) != totals.end() &&
            node(leaf).type.shape != node(v).type.shape) {
          ok = false;
        }
        *touches_provided = true;
        return;
      }
      int p = plan_.producer[leaf];
      if (is_anchor(node(leaf)) && !plan_.stored[leaf]) ok = false;
      if (p >= k) ok = false;
    });
    return ok;
  }

  std::vector<ValueId> provided_by(int k) const {
    const KernelPlan& kp = plan_.kernels[k];
    std::vector<ValueId> p = kp.outputs;
    p.insert(p.end(), kp.reductions.begin(), kp.reductions.end());
    if (kp.anchor >= 0) p.push_back(kp.anchor);
    return p;
  }

  static Shape reduced(const Shape& s, int axis) {
    Shape r = s;
    r[axis] = 1;
    return r;
  }

  // Anchor v joins an earlier kernel of its family that computes it in the same pass over the
  // same operands (family.takes_sibling).
  bool join_sibling(ValueId v) {
    const Family& family = family_for(node(v), families_);
    for (int k = static_cast<int>(plan_.kernels.size()) - 1; k >= 0; --k) {
      KernelPlan& kp = plan_.kernels[k];
      if (kp.family != &family || !family.takes_sibling(g_, kp, v)) continue;
      const std::vector<ValueId> leaves = own_leaves(v);
      if (!fits(k, leaves)) continue;
      add_reads(k, leaves);
      kp.outputs.push_back(v);
      plan_.producer[v] = k;
      return true;
    }
    return false;
  }

  // Anchor v joins an earlier kernel of its family that takes it (a reduction of a row kernel's
  // rows), its operand evaluated inside that kernel like an epilogue value.
  bool join_anchor(ValueId v) {
    const Family& family = family_for(node(v), families_);
    for (int k = static_cast<int>(plan_.kernels.size()) - 1; k >= 0; --k) {
      KernelPlan& kp = plan_.kernels[k];
      if (kp.family != &family || !family.takes_anchor(g_, kp, v)) continue;
      // An anchor over other shapes than the kernel's (a total over its rows) brings them.
      const Shape& in = node(node(v).inputs[0]).type.shape;
      std::vector<Shape> shapes = family.epilogue_shapes(kp);
      const bool total = family.takes_as_total(g_, kp, v);
      if (total) shapes.push_back(in);
      bool touches = false;
      if (!can_join(node(v).inputs[0], k, provided_by(k), shapes, &touches) || !touches) {
        continue;
      }
      std::vector<ValueId> leaves = leaves_of(node(v).inputs[0], false);
      if (!fits(k, leaves)) continue;
      add_reads(k, leaves);
      kp.reductions.push_back(v);
      kp.outputs.push_back(v);
      if (total) {
        kp.totals.push_back(v);
        kp.total_shapes.push_back(in);
        kp.total_shapes.push_back(node(v).type.shape);
      }
      plan_.producer[v] = k;
      return true;
    }
    return false;
  }

  // Value v joins the latest kernel that can evaluate it: an epilogue (of a row or matmul
  // kernel) must read what its kernel computes; a pointwise kernel takes any value over its
  // index space whose inputs are ready.
  bool join(ValueId v, Fusion how) {
    const Shape& s = node(v).type.shape;
    for (int k = static_cast<int>(plan_.kernels.size()) - 1; k >= 0; --k) {
      KernelPlan& kp = plan_.kernels[k];
      if (kp.family->fusion() != how) continue;
      std::vector<Shape> shapes =
          how == Fusion::Epilogue ? kp.family->epilogue_shapes(kp) : std::vector<Shape>{kp.shape};
      if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) continue;
      bool touches = false;
      if (!can_join(v, k, provided_by(k), shapes, &touches)) continue;
      if (how == Fusion::Epilogue && !touches) continue;
      std::vector<ValueId> leaves = leaves_of(v, true);
      if (!fits(k, leaves)) continue;
      add_reads(k, leaves);
      kp.outputs.push_back(v);
      plan_.producer[v] = k;
      return true;
    }
    return false;
  }

  void new_kernel(ValueId v) {
    const Family& family = family_for(node(v), families_);
    KernelPlan kp = family.start(g_, v);
    kp.family = &family;
    kp.outputs = {v};
    plan_.producer[v] = static_cast<int>(plan_.kernels.size());
    plan_.kernels.push_back(std::move(kp));
    kernel_reads_.emplace_back();
    add_reads(static_cast<int>(plan_.kernels.size()) - 1, own_leaves(v));
  }

  // Whether a kernel family other than pointwise starts its kernels at n.
  bool is_anchor(const ir::Node& n) const {
    return &family_for(n, families_) != &pointwise_family();
  }

  const ir::Graph& g_;
  int max_bindings_;
  FamilySet families_;
  // Per kernel: the stored values it reads (sorted, unique), for the binding limit.
  std::vector<std::vector<ValueId>> kernel_reads_;
  std::vector<std::vector<ValueId>> consumers_;
  std::vector<char> is_output_;
  Plan plan_;
};

}  // namespace

Shape index_space(const ir::Graph& g, const KernelPlan& kp) {
  return kp.family->index_space(g, kp);
}

Plan make_plan(const ir::Graph& g, const std::vector<ValueId>& outputs, bool fusion,
               int max_bindings, FamilySet families) {
  Planner p(g, outputs, max_bindings, families);
  return fusion ? p.fused() : p.unfused();
}

std::string print_plan(const ir::Graph& g, const Plan& p) {
  std::string s;
  auto ids = [](const std::vector<ValueId>& v) {
    return absl::StrJoin(v, ", ", [](std::string* o, ValueId x) { absl::StrAppend(o, "%", x); });
  };
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const KernelPlan& kp = p.kernels[k];
    absl::StrAppend(&s, "kernel ", k, ": ", kp.family->name(), " over ", kp.shape.to_string());
    if (kp.axis >= 0) absl::StrAppend(&s, " axis ", kp.axis);
    if (!kp.reductions.empty()) absl::StrAppend(&s, " reductions [", ids(kp.reductions), "]");
    if (kp.anchor >= 0) absl::StrAppend(&s, " anchor %", kp.anchor);
    absl::StrAppend(&s, " stores [", ids(kp.outputs), "]");
    // The variant the kernel runs, frozen before it was lowered.
    absl::StrAppend(&s, " variant ", kp.family->describe(kp.variant));
    absl::StrAppend(&s, "\n");
  }
  (void)g;
  return s;
}

}  // namespace ember::jit
