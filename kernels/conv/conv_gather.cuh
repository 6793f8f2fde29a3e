// The input side of the conv tiles (conv_mma.cuh, conv_simt.cuh; after mma_sync.cuh): the
// tile's arguments, its table of k offsets and one output pixel's gather.
template <int ES>
struct ConvElem {
  typedef unsigned short T;  // f16 and bf16 move as their bits
};
template <>
struct ConvElem<4> {
  typedef float T;
};
struct ConvTileArgs {
  uint x_off, sxn, sxc, sxh, sxw;  // the input's element offset (this group's) and strides
  uint H, W, OH, OW;               // input and output sizes (rows 1 for a 1-d convolution)
  uint KH, KW, SH, SW, PH, PW, DH, DW;
  uint w_off, w_ld;  // this group's first weight row and the row stride (elements)
  uint M, N, K;
};
// Per k: the input's byte offset of (c, kh, kw) relative to the pixel's top-left tap, and the
// tap's row and column shifts (16 bits each) for the bounds. Worked out once per tile, it leaves a
// gathered element two adds, two compares and a load (the divisions by the kernel's sizes and the
// counters ran ~35 PTX instructions per element). k past K reads rows past the input. Every
// thread of the workgroup takes part; a barrier must follow before any gather.
template <int ES, int THREADS>
__device__ __forceinline__ void conv_k_table(uint2* table, const ConvTileArgs& p, uint kp) {
  const uint taps = p.KH * p.KW;
  for (uint k = threadIdx.x; k < kp; k += THREADS) {
    uint2 e = make_uint2(0u, 0x7fffu);
    if (k < p.K) {
      const uint r = k % taps, dh = r / p.KW * p.DH, dw = r % p.KW * p.DW;
      e = make_uint2((k / taps * p.sxc + dh * p.sxh + dw * p.sxw) * ES, dh | dw << 16);
    }
    table[k] = e;
  }
}
// Output pixel m's gather: runs of KPT consecutive k (two table entries per 16-byte read).
template <int ES, int KPT>
struct ConvPixel {
  typedef typename ConvElem<ES>::T E;
  const char* xp;  // the pixel's top-left tap (outside the input where padded)
  int ih0, iw0;
  __device__ __forceinline__ ConvPixel(const void* X, const ConvTileArgs& p, uint m) {
    const uint ow = m % p.OW, rest = m / p.OW, oh = rest % p.OH, n = rest / p.OH;
    // A row past M starts far above the input: every bound fails.
    ih0 = m < p.M ? int(oh * p.SH) - int(p.PH) : -(1 << 20);
    iw0 = int(ow * p.SW) - int(p.PW);
    xp = reinterpret_cast<const char*>(X) + (p.x_off + (m < p.M ? uint64_t(n) * p.sxn : 0u) +
                                             (int64_t(ih0) * p.sxh + int64_t(iw0) * p.sxw)) *
                                                ES;
  }
  __device__ __forceinline__ void gather(const uint2* table, uint k, const ConvTileArgs& p,
                                         E (&v)[KPT]) const {
    const uint4* t = reinterpret_cast<const uint4*>(table + k);
#pragma unroll
    for (int j = 0; j < KPT / 2; ++j) {
      const uint4 q = t[j];
      const int ih = ih0 + int(q.y & 0xffffu), iw = iw0 + int(q.y >> 16);
      const int ih2 = ih0 + int(q.w & 0xffffu), iw2 = iw0 + int(q.w >> 16);
      E a = E(0), b = E(0);
      if (uint(ih) < p.H && uint(iw) < p.W) a = *reinterpret_cast<const E*>(xp + q.x);
      if (uint(ih2) < p.H && uint(iw2) < p.W) b = *reinterpret_cast<const E*>(xp + q.z);
      v[2 * j] = a;
      v[2 * j + 1] = b;
    }
  }
};
