#include "jit/codegen/cuda_tensor_core.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/ops.h"
#include "kernels/attention/device_code.h"
#include "kernels/conv/device_code.h"
#include "kernels/matmul/device_code.h"
#include "kernels/rnn/device_code.h"

namespace ember::jit {
namespace {

// The accumulator list of an m64nN wgmma ("{%0,...}") and its operands (d[0, N / 2)).
std::pair<std::string, std::string> wgmma_accumulators(int n) {
  std::vector<std::string> names, operands;
  for (int i = 0; i < n / 2; ++i) {
    names.push_back(absl::StrCat("%", i));
    operands.push_back(absl::StrCat("\"+f\"(d[", i, "])"));
  }
  return {absl::StrCat("{", absl::StrJoin(names, ","), "}"), absl::StrJoin(operands, ", ")};
}

// Wgmma<N>::op<KIND, TRANS_B>: one m64nNk16 wgmma (f16 or bf16 in) or m64nNk8 (KIND 2: TF32,
// K-major operands only, no transpose bits) with f32 accumulators d[0, N / 2), both operands
// in shared memory. The instruction names every accumulator register, so the source is
// generated per N.
std::string wgmma_op_source(int n) {
  const int regs = n / 2;
  const auto [names, operands] = wgmma_accumulators(n);
  auto variant = [&](const char* type) {
    const bool tf32 = std::string_view(type) == "tf32";
    // scale-d, imm-scale-a, imm-scale-b, then (16-bit types) imm-trans-a and imm-trans-b.
    const std::string tail = tf32 ? "1, 1, 1" : absl::StrCat("1, 1, 1, 0, %", regs + 2);
    return absl::StrCat("    asm volatile(\"wgmma.mma_async.sync.aligned.m64n", n,
                        tf32 ? "k8" : "k16", ".f32.", type, ".", type, " ", names, ", %", regs,
                        ", %", regs + 1, ", ", tail, ";\\n\"\n      : ", operands,
                        "\n      : \"l\"(da), \"l\"(db)", tf32 ? "" : ", \"n\"(TRANS_B)", ");\n");
  };
  return absl::StrCat(
      "template <> struct Wgmma<", n, "> {\n", "  template <int KIND, int TRANS_B>\n",
      "  static __device__ __forceinline__ void op(float* d, uint64_t da, uint64_t db) {\n",
      "  if (KIND == 0)\n", variant("f16"), "  else if (KIND == 1)\n", variant("bf16"), "  else\n",
      variant("tf32"), "  }\n};\n");
}

// WgmmaTf32<N>::op: one m64nNk8 TF32 wgmma whose A is the four registers a (wgmma_tf32.cuh).
std::string wgmma_tf32_rs_source(int n) {
  const int regs = n / 2;
  const auto [names, operands] = wgmma_accumulators(n);
  return absl::StrCat(
      "template <> struct WgmmaTf32<", n, "> {\n",
      "  static __device__ __forceinline__ void op(float* d, const uint (&a)[4], uint64_t db) {\n",
      "    asm volatile(\"wgmma.mma_async.sync.aligned.m64n", n, "k8.f32.tf32.tf32 ", names, ", {%",
      regs, ",%", regs + 1, ",%", regs + 2, ",%", regs + 3, "}, %", regs + 4,
      ", 1, 1, 1;\\n\"\n      : ", operands,
      "\n      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(db));\n  }\n};\n");
}

}  // namespace

std::string tensor_core_helpers(const KernelDesc& k) {
  std::set<int> wgmma_widths, tf32_nmajor_widths;
  bool any = false, simt = false, tma = false, conv_mma = false, conv_simt = false;
  for (const Stmt& s : k.body) {
    if (s.op == SOp::Lstm) return kernels::rnn::kLstmCuh;
    if (s.op == SOp::Attention) {
      return absl::StrCat(kernels::matmul::kMmaSyncCuh, kernels::attention::kFlashFwdCuh,
                          kernels::attention::kFlashBwdCuh);
    }
    if (s.op != SOp::MmaTile) continue;
    MmaShape m = MmaShape::unpack(s.code);
    if (m.conv) {
      (m.kind == MmaShape::F32Simt ? conv_simt : conv_mma) = true;
      continue;
    }
    if (m.kind == MmaShape::F32Simt) {
      simt = true;
      continue;
    }
    any = true;
    if (m.wgmma) (m.swap ? tf32_nmajor_widths : wgmma_widths).insert(m.block_n());
    tma = tma || m.tma;
  }
  if (!any && !simt && !conv_mma && !conv_simt) return "";
  using namespace kernels::matmul;
  std::string out = absl::StrCat(kMmaSyncCuh, simt ? kSimtTileCuh : "");
  if (conv_mma || conv_simt) {
    absl::StrAppend(&out, kernels::conv::kConvGatherCuh, conv_mma ? kernels::conv::kConvMmaCuh : "",
                    conv_simt ? kernels::conv::kConvSimtCuh : "");
  }
  if (!any) return out;
  if (wgmma_widths.empty() && tf32_nmajor_widths.empty()) return out;
  out += kWgmmaCuh;
  for (int n : wgmma_widths) out += wgmma_op_source(n);
  if (tma) out += kWgmmaTmaCuh;
  if (tf32_nmajor_widths.empty()) return out;
  out += kWgmmaTf32Cuh;
  for (int n : tf32_nmajor_widths) out += wgmma_tf32_rs_source(n);
  return out;
}

std::string tensor_core_call(const MmaShape& m, const std::string& a, const std::string& b,
                             const std::vector<std::string>& args, const std::string& acc) {
  if (m.conv) {  // args: ConvTileArgs' fields, then the block's first row and column
    const size_t fields = args.size() - 2;
    std::vector<std::string> init(args.begin(), args.begin() + static_cast<long>(fields));
    const std::string ca =
        absl::StrCat("{ const ConvTileArgs ca_{", absl::StrJoin(init, ", "), "}; ");
    if (m.kind == MmaShape::F32Simt) {
      // conv_simt.cuh: groups of 2 BM threads split the k-tiles.
      return absl::StrCat(ca, "conv_simt_tile<", m.block_m(), ", ", m.threads() / (2 * m.block_m()),
                          ", ", m.stages, ">(", a, ", ", b, ", ca_, ", args[fields], ", ",
                          args[fields + 1], ", ", acc, "); }");
    }
    return absl::StrCat(ca, "conv_mma_tile<", static_cast<int>(m.kind), ", ", m.warps_m, ", ",
                        m.warps_n, ", ", m.frags_m, ", ", m.frags_n, ", ", m.stages, ", ",
                        m.row_bytes, ">(", a, ", ", b, ", ca_, ", args[fields], ", ",
                        args[fields + 1], ", ", acc, "); }");
  }
  if (m.swap) {  // TF32 with an N-major B (wgmma_tf32.cuh); the accumulators hold C^T
    return absl::StrCat("wgmma_tf32_nmajor_tile<", m.warps_m, ", ", m.block_n(), ", ", m.stages,
                        ", ", m.cluster ? 2 : 1, ">(&tm0, &tm1, ", args[6], ", ", args[7], ", ",
                        args[8], ", ", acc, ");");
  }
  if (m.tma) {  // operands through tensor maps tm0 and tm1: K and the block's corner only
    return absl::StrCat("wgmma_tma_tile<", static_cast<int>(m.kind), ", ", m.b_kmajor, ", ",
                        m.warps_m, ", ", m.block_n(), ", ", m.stages, ">(&tm0, &tm1, ", args[6],
                        ", ", args[7], ", ", args[8], ", ", acc, ");");
  }
  std::string call =
      m.kind == MmaShape::F32Simt
          ? absl::StrCat("simt_tile<", m.row_bytes / 4, ", ", m.stages, ", ", m.block_n(), ", ",
                         m.a_kmajor ? "true" : "false", ">(")
      : m.wgmma ? absl::StrCat("wgmma_tile<", static_cast<int>(m.kind), ", ", m.b_kmajor, ", ",
                               m.warps_m, ", ", m.block_n(), ", ", m.stages, ">(")
                : absl::StrCat("mma_tile<", static_cast<int>(m.kind), ", ", m.a_kmajor, ", ",
                               m.b_kmajor, ", ", m.warps_m, ", ", m.warps_n, ", ", m.frags_m, ", ",
                               m.frags_n, ", ", m.stages, ", ", m.row_bytes, ">(");
  return absl::StrCat(call, a, ", ", args[0], ", ", args[1], ", ", b, ", ", args[2], ", ", args[3],
                      ", ", args[4], ", ", args[5], ", ", args[6], ", ", args[7], ", ", args[8],
                      ", ", acc, ");");
}

namespace {

std::string bytes_at(int buffer, const std::string& offset) {
  return absl::StrCat("reinterpret_cast<const unsigned char*>(b", buffer, ") + 2ull * ", offset);
}

// The forward's FlashArgs (modes output and log-sum-exp): args as SOp::Attention lists them.
std::string forward_args(const Stmt& s, const std::vector<std::string>& a, bool lse_only) {
  std::string out = absl::StrCat("FlashArgs fa_; fa_.q = ", bytes_at(s.buffers[0], a[1]),
                                 "; fa_.k = ", bytes_at(s.buffers[1], a[5]),
                                 "; fa_.v = ", bytes_at(s.buffers[2], a[9]), ";");
  if (lse_only) {
    absl::StrAppend(&out, " fa_.o = nullptr; fa_.lse = reinterpret_cast<float*>(b", s.buffers[3],
                    ") + ", a[13], ";");
  } else if (s.code >> kAttentionWithLseBit & 1) {  // the output and the log-sum-exp
    absl::StrAppend(&out, " fa_.o = const_cast<unsigned char*>(", bytes_at(s.buffers[3], a[13]),
                    "); fa_.lse = reinterpret_cast<float*>(b", s.buffers[4], ") + ", a[23], ";");
  } else {
    absl::StrAppend(&out, " fa_.o = const_cast<unsigned char*>(", bytes_at(s.buffers[3], a[13]),
                    "); fa_.lse = nullptr;");
  }
  const char* strides[] = {"q_sb", "q_sh", "q_ss", "k_sb", "k_sh", "k_ss",
                           "v_sb", "v_sh", "v_ss", "o_sb", "o_sh", "o_ss"};
  for (int op = 0; op < 4; ++op) {
    for (int i = 0; i < 3; ++i)
      absl::StrAppend(&out, " fa_.", strides[op * 3 + i], " = ", a[2 + op * 4 + i], ";");
  }
  const char* sizes[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k"};
  for (int i = 0; i < 5; ++i) absl::StrAppend(&out, " fa_.", sizes[i], " = ", a[17 + i], ";");
  return out + absl::StrCat(" fa_.scale_log2 = __uint_as_float(", a[22], ");");
}

// The backward's FlashBwdArgs (modes dq and packed dk/dv).
std::string backward_args(const Stmt& s, const std::vector<std::string>& a, bool kv) {
  std::string out = absl::StrCat(
      "FlashBwdArgs fb_; fb_.q = ", bytes_at(s.buffers[0], a[1]),
      "; fb_.k = ", bytes_at(s.buffers[1], a[5]), "; fb_.v = ", bytes_at(s.buffers[2], a[9]),
      "; fb_.dout = ", bytes_at(s.buffers[3], a[13]),
      "; fb_.lse = reinterpret_cast<const float*>(b", s.buffers[4], ") + ", a[21],
      "; fb_.delta = reinterpret_cast<const float*>(b", s.buffers[5], ") + ", a[22],
      "; unsigned char* out_ = const_cast<unsigned char*>(", bytes_at(s.buffers[6], a[17]), ");");
  if (kv) {  // dk at batch 0.., dv at batch `batch`.. of the packed output
    absl::StrAppend(&out, " fb_.dq = nullptr; fb_.dk = out_; fb_.dv = out_ + 2ull * ", a[23], " * ",
                    a[18], ";");
  } else {
    absl::StrAppend(&out, " fb_.dq = out_; fb_.dk = fb_.dv = nullptr;");
  }
  const char* strides[] = {"q_sb", "q_sh", "q_ss", "k_sb",  "k_sh",  "k_ss",
                           "v_sb", "v_sh", "v_ss", "do_sb", "do_sh", "do_ss"};
  for (int op = 0; op < 4; ++op) {
    for (int i = 0; i < 3; ++i)
      absl::StrAppend(&out, " fb_.", strides[op * 3 + i], " = ", a[2 + op * 4 + i], ";");
  }
  const char* o[] = {"sb", "sh", "ss"};
  for (int i = 0; i < 3; ++i)
    absl::StrAppend(&out, " fb_.", kv ? "dk_" : "dq_", o[i], " = ", a[18 + i], ";");
  const char* sizes[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k"};
  for (int i = 0; i < 5; ++i) absl::StrAppend(&out, " fb_.", sizes[i], " = ", a[23 + i], ";");
  return out + absl::StrCat(" fb_.scale = __uint_as_float(", a[28],
                            "); fb_.scale_log2 = __uint_as_float(", a[29], ");");
}

}  // namespace

std::string attention_call(const Stmt& s, const std::vector<std::string>& a) {
  const int kind = s.code & 1, dim = s.code & 2 ? 128 : 64, mode = s.code >> 3 & 3;
  const char* causal = s.code & 4 ? "true" : "false";
  const std::string tparams = absl::StrCat("<", kind, ", ", dim, ", ", causal, ">");
  switch (mode) {
    case ir::kAttentionGradQ:
      return absl::StrCat("{ ", backward_args(s, a, false), " flash_bwd_dq_block", tparams,
                          "(fb_, ", a[0], "); }");
    case ir::kAttentionGradKV:
      return absl::StrCat("{ ", backward_args(s, a, true), " flash_bwd_dkv_block", tparams,
                          "(fb_, ", a[0], "); }");
    default:
      return absl::StrCat("{ ", forward_args(s, a, mode == ir::kAttentionLse), " flash_fwd_block",
                          tparams, "(fa_, ", a[0], "); }");
  }
}

std::string lstm_call(const Stmt& s, const std::vector<std::string>& a) {
  const bool grad = s.code & 1;
  const int units = s.code >> 2 & 31;
  std::string out = "{ LstmArgs la_;";
  for (int i = 0; i < 4; ++i) {
    const std::string* w = &a[1 + 4 * i];
    absl::StrAppend(&out, " la_.in[", i, "].p = reinterpret_cast<const float*>(b", s.buffers[i],
                    ") + ", w[0], "; la_.in[", i, "].s0 = ", w[1], "; la_.in[", i, "].s1 = ", w[2],
                    "; la_.in[", i, "].s2 = ", w[3], ";");
  }
  absl::StrAppend(&out, " la_.out = const_cast<float*>(reinterpret_cast<const float*>(b",
                  s.buffers[5], ")) + ", a[17], "; la_.o0 = ", a[18], "; la_.o1 = ", a[19],
                  "; la_.o2 = ", a[20], ";");
  absl::StrAppend(&out, " la_.sync = const_cast<unsigned*>(reinterpret_cast<const unsigned*>(b",
                  s.buffers[4], ")) + ", a[21], ";");
  const char* sizes[] = {"batch", "steps", "hidden", "workgroups", "bb4"};
  for (int i = 0; i < 5; ++i) absl::StrAppend(&out, " la_.", sizes[i], " = ", a[22 + i], ";");
  absl::StrAppend(&out, " la_.reverse = ", s.code & 2 ? "true" : "false", ";");
  return absl::StrCat(out, grad ? " lstm_gradient_block<" : " lstm_forward_block<", units,
                      ">(la_, ", a[0], "); }");
}

}  // namespace ember::jit
