// CUDA C transliteration of two Java kernels of sirocco.kernels.quant, written to measure their
// DESIGN on the H200 before Sirocco's Java->PTX compiler exists. This is not the shipped code path:
// the Java methods are the source of truth; this file mirrors them statement for statement
// (same loads, same unpacking, same arithmetic, fmad disabled as the JIT does) for affine 4-bit,
// group 64, bf16:
//   qmv_float  <- AffineQmvKernel.qmv          (CUDA cores, warp-shuffle reduction)
//   qmm_mma    <- QmmMmaKernel.qmm             (mma.sync m16n8k16, weights as A, x as B)
//   floor_read    the issue's floor: read the same bytes with 16-byte loads, 4 in flight/thread
// and measurement variants: qmm_mma<..., U, SPF> (U chunks issued per iteration, scale/bias loads
// issued with the weights), qmm_all / qmv_all (all of a lane's loads before any arithmetic),
// floor_pattern (pure reads with the mma kernel's access pattern). Results and method:
// tornado-kernels/README.md, "GPU measurements".
// Build: nvcc -O3 -arch=sm_90 -fmad=false -Xptxas -v qmm_proto.cu -lcublas -o qmm_proto
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#ifndef NO_CUBLAS
#include <cublas_v2.h>
#endif

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

static const int N = 12288, K = 4096, G = 64;

__device__ __forceinline__ float bf_lo(uint32_t p) { return __uint_as_float(p << 16); }
__device__ __forceinline__ float bf_hi(uint32_t p) { return __uint_as_float(p & 0xFFFF0000u); }
__device__ __forceinline__ float bf(uint16_t b) { return __uint_as_float(((uint32_t)b) << 16); }
__device__ __forceinline__ uint16_t to_bf(float v) {  // round to nearest even (Bf16.fromFloat)
  uint32_t bits = __float_as_uint(v);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return (uint16_t)((bits >> 16) | 0x40);
  return (uint16_t)((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

// ---------------- floor ----------------
__global__ void floor_read(const uint4* __restrict__ a, size_t n16, const uint4* __restrict__ b, size_t nb16, float* out) {
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  uint32_t acc = 0;
  for (size_t i = tid; i < n16; i += 4 * stride) {
    uint4 v0 = __ldg(a + i);
    uint4 v1 = i + stride < n16 ? __ldg(a + i + stride) : make_uint4(0,0,0,0);
    uint4 v2 = i + 2*stride < n16 ? __ldg(a + i + 2*stride) : make_uint4(0,0,0,0);
    uint4 v3 = i + 3*stride < n16 ? __ldg(a + i + 3*stride) : make_uint4(0,0,0,0);
    acc ^= v0.x ^ v1.y ^ v2.z ^ v3.w ^ v0.w ^ v1.x ^ v2.y ^ v3.z;
  }
  for (size_t i = tid; i < nb16; i += stride) { uint4 v = __ldg(b + i); acc ^= v.x ^ v.w; }
  if (acc == 0x12345678u) out[0] = 1.f;
}

// ---------------- qmv_float (AffineQmvKernel, bits=4, bf16, rowsPerWarp=R, WARPS=8) ----------------
__device__ __forceinline__ float one_(uint32_t m) { return __uint_as_float(m | 0x3F800000u); }
__device__ __forceinline__ float dot4(uint32_t w, float4 a, float4 b, float d) {
  d = __fmaf_rn(one_((w << 19) & 0x780000), a.x, d);
  d = __fmaf_rn(one_((w << 15) & 0x780000), a.y, d);
  d = __fmaf_rn(one_((w << 11) & 0x780000), a.z, d);
  d = __fmaf_rn(one_((w << 7) & 0x780000), a.w, d);
  d = __fmaf_rn(one_((w << 3) & 0x780000), b.x, d);
  d = __fmaf_rn(one_((w >> 1) & 0x780000), b.y, d);
  d = __fmaf_rn(one_((w >> 5) & 0x780000), b.z, d);
  return __fmaf_rn(one_((w >> 9) & 0x780000), b.w, d);
}
__device__ __forceinline__ float4 lo4(uint4 p) { return make_float4(bf_lo(p.x), bf_hi(p.x), bf_lo(p.y), bf_hi(p.y)); }
__device__ __forceinline__ float4 hi4(uint4 p) { return make_float4(bf_lo(p.z), bf_hi(p.z), bf_lo(p.w), bf_hi(p.w)); }
__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float fold(float acc, float d, float xs, float s, float b) {
  float S = s * 16.f; return __fmaf_rn(S, d, __fmaf_rn(b - S, xs, acc));
}
template <int R>
__global__ void __launch_bounds__(256) qmv_float(const uint32_t* __restrict__ wq, const uint16_t* __restrict__ sc, const uint16_t* __restrict__ bi,
    const uint16_t* __restrict__ x, uint16_t* out, int n, int k) {
  const int WARPS = 8;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int n0 = (blockIdx.x * WARPS + warp) * R, m = blockIdx.y;
  int units = k / 32, groups = k / G, wpr = k * 4 / 32;
  int r[4]; for (int i = 0; i < 4; i++) r[i] = min(n0 + i, n - 1);
  float a[4] = {0, 0, 0, 0};
  for (int u = lane; u < units; u += 32) {
    int xb = m * k + u * 32;
    uint4 p0 = __ldg((const uint4*)(x + xb)), p1 = __ldg((const uint4*)(x + xb + 8));
    uint4 p2 = __ldg((const uint4*)(x + xb + 16)), p3 = __ldg((const uint4*)(x + xb + 24));
    float4 x0 = lo4(p0), x1 = hi4(p0), x2 = lo4(p1), x3 = hi4(p1), x4 = lo4(p2), x5 = hi4(p2), x6 = lo4(p3), x7 = hi4(p3);
    float xs = (sum4(x0) + sum4(x1)) + (sum4(x2) + sum4(x3)) + ((sum4(x4) + sum4(x5)) + (sum4(x6) + sum4(x7)));
    int gi = (u * 32) / G;
#pragma unroll
    for (int i = 0; i < R; i++) {
      uint4 w = __ldg((const uint4*)(wq + (size_t)r[i] * wpr + u * 4));
      float d = dot4(w.x, x0, x1, 0.f); d = dot4(w.y, x2, x3, d); d = dot4(w.z, x4, x5, d); d = dot4(w.w, x6, x7, d);
      a[i] = fold(a[i], d, xs, bf(__ldg(sc + r[i] * groups + gi)), bf(__ldg(bi + r[i] * groups + gi)));
    }
  }
#pragma unroll
  for (int i = 0; i < R; i++) {
    float v = a[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0 && n0 + i < n) out[(size_t)m * n + n0 + i] = to_bf(v);
  }
}

// ---------------- qmm_mma (QmmMmaKernel, affine, bits=4, group 64, bf16) ----------------
__device__ __forceinline__ float4 mma(uint4 a, uint2 b, float4 c) {
  float4 d;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w));
  return d;
}
template <int WP> __device__ __forceinline__ uint4 loadChunk(const uint32_t* p) {
  if (WP == 4) return __ldg((const uint4*)p);
  if (WP == 2) { uint2 v = __ldg((const uint2*)p); return make_uint4(v.x, v.y, 0, 0); }
  return make_uint4(__ldg(p), 0, 0, 0);
}
__device__ __forceinline__ uint32_t wordAt(uint4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
__device__ __forceinline__ uint4 loadX(const uint16_t* x, int rowBase, int kw) {
  if (rowBase < 0) return make_uint4(0, 0, 0, 0);
  return __ldg((const uint4*)(x + rowBase + kw));
}
__device__ __forceinline__ uint2 fragB(uint4 p, int h) {
  uint32_t lo = h == 0 ? p.x : p.y, hi = h == 0 ? p.z : p.w;
  return make_uint2((lo & 0xFFFF) | (hi << 16), (lo >> 16) | (hi & 0xFFFF0000u));
}
__device__ __forceinline__ uint4 fragA(uint32_t wa, uint32_t wb, int h) {
  const uint32_t magic = 0x43004300u; int sh = 8 * h;
  return make_uint4(((wa >> sh) & 0x000F000Fu) | magic, ((wb >> sh) & 0x000F000Fu) | magic,
                    ((wa >> (sh + 4)) & 0x000F000Fu) | magic, ((wb >> (sh + 4)) & 0x000F000Fu) | magic);
}
__device__ __forceinline__ float4 fold4(float4 acc, float4 c, float4 o, float sA, float zA, float sB, float zB) {
  return make_float4(__fmaf_rn(sA, c.x, __fmaf_rn(zA, o.x, acc.x)), __fmaf_rn(sA, c.y, __fmaf_rn(zA, o.y, acc.y)),
                     __fmaf_rn(sB, c.z, __fmaf_rn(zB, o.x, acc.z)), __fmaf_rn(sB, c.w, __fmaf_rn(zB, o.y, acc.w)));
}
__device__ __forceinline__ void store4(uint16_t* out, float4 v, int r0, int f, int rows, int n) {
  if (f < n) { if (r0 < rows) out[(size_t)r0 * n + f] = to_bf(v.x); if (r0 + 1 < rows) out[(size_t)(r0 + 1) * n + f] = to_bf(v.y); }
  if (f + 8 < n) { if (r0 < rows) out[(size_t)r0 * n + f + 8] = to_bf(v.z); if (r0 + 1 < rows) out[(size_t)(r0 + 1) * n + f + 8] = to_bf(v.w); }
}
template <int MT, int NT, int WN, int KS, int WP, int U = 1, int SPF = 0>
__global__ void __launch_bounds__(32 * WN * KS) qmm_mma(const uint32_t* __restrict__ wq, const uint16_t* __restrict__ scales,
    const uint16_t* __restrict__ biases, const uint16_t* __restrict__ x, uint16_t* out, int rows, int n, int k) {
  int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, warp = threadIdx.x >> 5;
  int wnI = warp % WN, ksI = warp / WN;
  int nBase = (blockIdx.x * WN + wnI) * 16 * MT, mBase = blockIdx.y * 8 * NT;
  const int perWord = 8, chunkWords = 4 * WP, chunkK = chunkWords * perWord;
  int chunks = k / chunkK, wpr = k / 8, groups = k / G;
  const float offset = 128.f;
  int rowA[2] = {min(nBase + g, n - 1), min(nBase + 16 + g, n - 1)};
  int rowB[2] = {min(nBase + 8 + g, n - 1), min(nBase + 24 + g, n - 1)};
  int xr[4];
  for (int j = 0; j < 4; j++) xr[j] = mBase + 8 * j + g < rows ? (mBase + 8 * j + g) * k : -1;
  float4 acc[MT][NT];
  for (int i = 0; i < MT; i++) for (int j = 0; j < NT; j++) acc[i][j] = make_float4(0, 0, 0, 0);
  int lw = t * WP;
  uint4 nA[U][MT], nB[U][MT]; uint32_t nS[U][MT][2], nZ[U][MT][2];
  auto issue = [&](int c0) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      int c = c0 + u * KS;
      bool ok = c < chunks; int cc = ok ? c : 0;
      int w0 = cc * chunkWords + lw; int gi = (cc * chunkK) / G;
#pragma unroll
      for (int i = 0; i < MT; i++) {
        nA[u][i] = loadChunk<WP>(wq + (size_t)rowA[i] * wpr + w0); nB[u][i] = loadChunk<WP>(wq + (size_t)rowB[i] * wpr + w0);
        if (SPF) { nS[u][i][0] = __ldg(scales + rowA[i] * groups + gi); nS[u][i][1] = __ldg(scales + rowB[i] * groups + gi);
                   nZ[u][i][0] = __ldg(biases + rowA[i] * groups + gi); nZ[u][i][1] = __ldg(biases + rowB[i] * groups + gi); }
      }
    }
  };
  issue(ksI);
  const uint4 ones = make_uint4(0x3F803F80u, 0x3F803F80u, 0x3F803F80u, 0x3F803F80u);
  for (int c0 = ksI; c0 < chunks; c0 += U * KS) {
    uint4 uA[U][MT], uB[U][MT]; uint32_t uS[U][MT][2], uZ[U][MT][2];
#pragma unroll
    for (int u = 0; u < U; u++) for (int i = 0; i < MT; i++) { uA[u][i] = nA[u][i]; uB[u][i] = nB[u][i];
      uS[u][i][0] = nS[u][i][0]; uS[u][i][1] = nS[u][i][1]; uZ[u][i][0] = nZ[u][i][0]; uZ[u][i][1] = nZ[u][i][1]; }
    if (c0 + U * KS < chunks) issue(c0 + U * KS);
#pragma unroll
    for (int u = 0; u < U; u++) {
      int c = c0 + u * KS;
      if (c >= chunks) break;
      int gi = (c * chunkK) / G;
      float4 cc_[MT][NT], o[NT];
      for (int i = 0; i < MT; i++) for (int j = 0; j < NT; j++) cc_[i][j] = make_float4(0, 0, 0, 0);
      for (int j = 0; j < NT; j++) o[j] = make_float4(0, 0, 0, 0);
#pragma unroll
      for (int cc = 0; cc < WP; cc++) {
        int kw = (c * chunkWords + lw + cc) * perWord;
        uint4 xq[NT];
#pragma unroll
        for (int j = 0; j < NT; j++) xq[j] = loadX(x, xr[j], kw);
#pragma unroll
        for (int h = 0; h < 2; h++) {
          uint2 f[NT];
#pragma unroll
          for (int j = 0; j < NT; j++) f[j] = fragB(xq[j], h);
#pragma unroll
          for (int i = 0; i < MT; i++) {
            uint4 e = fragA(wordAt(uA[u][i], cc), wordAt(uB[u][i], cc), h);
#pragma unroll
            for (int j = 0; j < NT; j++) cc_[i][j] = mma(e, f[j], cc_[i][j]);
          }
#pragma unroll
          for (int j = 0; j < NT; j++) o[j] = mma(ones, f[j], o[j]);
        }
      }
#pragma unroll
      for (int i = 0; i < MT; i++) {
        float sA, sB, bA, bB;
        if (SPF) { sA = bf(uS[u][i][0]); sB = bf(uS[u][i][1]); bA = bf(uZ[u][i][0]); bB = bf(uZ[u][i][1]); }
        else { sA = bf(__ldg(scales + rowA[i] * groups + gi)); sB = bf(__ldg(scales + rowB[i] * groups + gi));
               bA = bf(__ldg(biases + rowA[i] * groups + gi)); bB = bf(__ldg(biases + rowB[i] * groups + gi)); }
        float zA = bA - offset * sA, zB = bB - offset * sB;
#pragma unroll
        for (int j = 0; j < NT; j++) acc[i][j] = fold4(acc[i][j], cc_[i][j], o[j], sA, zA, sB, zB);
      }
    }
  }
  const int per = 4 * MT * NT;
  __shared__ float red[KS > 1 ? (KS - 1) * WN * 32 * 4 * MT * NT : 1];
  if (KS > 1) {
    if (ksI > 0) {
      int base = ((ksI - 1) * WN + wnI) * per * 32 + lane;
      for (int i = 0; i < MT; i++) for (int j = 0; j < NT; j++) {
        int s = 4 * (i * NT + j);
        red[base + s * 32] = acc[i][j].x; red[base + (s + 1) * 32] = acc[i][j].y;
        red[base + (s + 2) * 32] = acc[i][j].z; red[base + (s + 3) * 32] = acc[i][j].w;
      }
    }
    __syncthreads();
    if (ksI == 0) {
      for (int s2 = 1; s2 < KS; s2++) {
        int base = ((s2 - 1) * WN + wnI) * per * 32 + lane;
        for (int i = 0; i < MT; i++) for (int j = 0; j < NT; j++) {
          int s = 4 * (i * NT + j);
          acc[i][j].x += red[base + s * 32]; acc[i][j].y += red[base + (s + 1) * 32];
          acc[i][j].z += red[base + (s + 2) * 32]; acc[i][j].w += red[base + (s + 3) * 32];
        }
      }
    }
  }
  if (ksI == 0) {
    for (int i = 0; i < MT; i++) for (int j = 0; j < NT; j++) store4(out, acc[i][j], mBase + 8 * j + 2 * t, nBase + 16 * i + g, rows, n);
  }
}


// qmv variant: every lane issues all of its weight, scale and bias loads before any arithmetic.
template <int R, int UPL>
__global__ void __launch_bounds__(256) qmv_all(const uint32_t* __restrict__ wq, const uint16_t* __restrict__ sc, const uint16_t* __restrict__ bi,
    const uint16_t* __restrict__ x, uint16_t* out, int n, int k) {
  const int WARPS = 8;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int n0 = (blockIdx.x * WARPS + warp) * R, m = blockIdx.y;
  int groups = k / G, wpr = k * 4 / 32;
  int r[R]; for (int i = 0; i < R; i++) r[i] = min(n0 + i, n - 1);
  uint4 w[UPL][R]; uint16_t s[UPL][R], b[UPL][R];
#pragma unroll
  for (int v = 0; v < UPL; v++) {
    int u = lane + 32 * v; int gi = (u * 32) / G;
#pragma unroll
    for (int i = 0; i < R; i++) { w[v][i] = __ldg((const uint4*)(wq + (size_t)r[i] * wpr + u * 4));
      s[v][i] = __ldg(sc + r[i] * groups + gi); b[v][i] = __ldg(bi + r[i] * groups + gi); }
  }
  float a[R];
  for (int i = 0; i < R; i++) a[i] = 0.f;
#pragma unroll
  for (int v = 0; v < UPL; v++) {
    int u = lane + 32 * v; int xb = m * k + u * 32;
    uint4 p0 = __ldg((const uint4*)(x + xb)), p1 = __ldg((const uint4*)(x + xb + 8));
    uint4 p2 = __ldg((const uint4*)(x + xb + 16)), p3 = __ldg((const uint4*)(x + xb + 24));
    float4 x0 = lo4(p0), x1 = hi4(p0), x2 = lo4(p1), x3 = hi4(p1), x4 = lo4(p2), x5 = hi4(p2), x6 = lo4(p3), x7 = hi4(p3);
    float xs = (sum4(x0) + sum4(x1)) + (sum4(x2) + sum4(x3)) + ((sum4(x4) + sum4(x5)) + (sum4(x6) + sum4(x7)));
#pragma unroll
    for (int i = 0; i < R; i++) {
      float d = dot4(w[v][i].x, x0, x1, 0.f); d = dot4(w[v][i].y, x2, x3, d); d = dot4(w[v][i].z, x4, x5, d); d = dot4(w[v][i].w, x6, x7, d);
      a[i] = fold(a[i], d, xs, bf(s[v][i]), bf(b[v][i]));
    }
  }
#pragma unroll
  for (int i = 0; i < R; i++) {
    float v = a[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0 && n0 + i < n) out[(size_t)m * n + n0 + i] = to_bf(v);
  }
}

// mma variant for rows <= 8 (NT = 1, WP = 2, group 64): each warp owns a CONTIGUOUS k range of C
// chunks and issues all of their weight, scale, bias and x loads before the first mma.
template <int MT, int KS, int C>
__global__ void __launch_bounds__(32 * KS) qmm_all(const uint32_t* __restrict__ wq, const uint16_t* __restrict__ scales,
    const uint16_t* __restrict__ biases, const uint16_t* __restrict__ x, uint16_t* out, int rows, int n, int k) {
  int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, ksI = threadIdx.x >> 5;
  int nBase = blockIdx.x * 16 * MT;
  const int chunkWords = 8, chunkK = 64;
  int wpr = k / 8, groups = k / G;
  int rowA[MT], rowB[MT];
  for (int i = 0; i < MT; i++) { rowA[i] = min(nBase + 16 * i + g, n - 1); rowB[i] = min(nBase + 16 * i + 8 + g, n - 1); }
  int xr = g < rows ? g * k : -1;
  uint2 wA[C][MT], wB[C][MT]; uint16_t sA[C][MT], sB[C][MT], zA[C][MT], zB[C][MT]; uint4 xq[C][2];
#pragma unroll
  for (int c = 0; c < C; c++) {
    int ch = ksI * C + c; int w0 = ch * chunkWords + 2 * t; int gi = ch;
#pragma unroll
    for (int i = 0; i < MT; i++) {
      wA[c][i] = __ldg((const uint2*)(wq + (size_t)rowA[i] * wpr + w0)); wB[c][i] = __ldg((const uint2*)(wq + (size_t)rowB[i] * wpr + w0));
      sA[c][i] = __ldg(scales + rowA[i] * groups + gi); sB[c][i] = __ldg(scales + rowB[i] * groups + gi);
      zA[c][i] = __ldg(biases + rowA[i] * groups + gi); zB[c][i] = __ldg(biases + rowB[i] * groups + gi);
    }
    xq[c][0] = loadX(x, xr, (w0) * 8); xq[c][1] = loadX(x, xr, (w0 + 1) * 8);
  }
  const uint4 ones = make_uint4(0x3F803F80u, 0x3F803F80u, 0x3F803F80u, 0x3F803F80u);
  float4 acc[MT];
  for (int i = 0; i < MT; i++) acc[i] = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int c = 0; c < C; c++) {
    float4 cc_[MT], o = make_float4(0, 0, 0, 0);
    for (int i = 0; i < MT; i++) cc_[i] = make_float4(0, 0, 0, 0);
#pragma unroll
    for (int cc = 0; cc < 2; cc++) {
#pragma unroll
      for (int h = 0; h < 2; h++) {
        uint2 f = fragB(xq[c][cc], h);
#pragma unroll
        for (int i = 0; i < MT; i++) {
          uint4 e = fragA(cc == 0 ? wA[c][i].x : wA[c][i].y, cc == 0 ? wB[c][i].x : wB[c][i].y, h);
          cc_[i] = mma(e, f, cc_[i]);
        }
        o = mma(ones, f, o);
      }
    }
#pragma unroll
    for (int i = 0; i < MT; i++) {
      float a = bf(sA[c][i]), b2 = bf(sB[c][i]);
      acc[i] = fold4(acc[i], cc_[i], o, a, bf(zA[c][i]) - 128.f * a, b2, bf(zB[c][i]) - 128.f * b2);
    }
  }
  __shared__ float red[(KS - 1) * 32 * 4 * MT + 1];
  if (ksI > 0) for (int i = 0; i < MT; i++) {
    int base = (ksI - 1) * 32 * 4 * MT + lane; int s = 4 * i;
    red[base + s * 32] = acc[i].x; red[base + (s + 1) * 32] = acc[i].y; red[base + (s + 2) * 32] = acc[i].z; red[base + (s + 3) * 32] = acc[i].w;
  }
  __syncthreads();
  if (ksI == 0) {
    for (int s2 = 1; s2 < KS; s2++) for (int i = 0; i < MT; i++) {
      int base = (s2 - 1) * 32 * 4 * MT + lane; int s = 4 * i;
      acc[i].x += red[base + s * 32]; acc[i].y += red[base + (s + 1) * 32]; acc[i].z += red[base + (s + 2) * 32]; acc[i].w += red[base + (s + 3) * 32];
    }
    for (int i = 0; i < MT; i++) store4(out, acc[i], 2 * t, nBase + 16 * i + g, rows, n);
  }
}


// Pure reads with the mma kernel's access pattern: lane (g, t) of a warp reads WB bytes of rows
// tile*16+g and tile*16+8+g at word chunk*4*WB/4 + t*WB/4; IF loads in flight per lane per row.
template <int WB, int IF>
__global__ void __launch_bounds__(256) floor_pattern(const uint32_t* __restrict__ wq, int n, int k, float* sink) {
  int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  int warpGlobal = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = gridDim.x * blockDim.x / 32;
  int wpr = k / 8, chunkWords = WB, chunks = wpr / chunkWords, tiles = n / 16;
  uint32_t acc = 0;
  for (int item = warpGlobal; item < tiles * (chunks / IF); item += warps) {
    int tile = item % tiles, c0 = (item / tiles) * IF;
    const uint32_t* ra = wq + (size_t)(tile * 16 + g) * wpr;
    const uint32_t* rb = wq + (size_t)(tile * 16 + 8 + g) * wpr;
#pragma unroll
    for (int i = 0; i < IF; i++) {
      int w = (c0 + i) * chunkWords + t * (WB / 4);
      if (WB == 16) { uint4 a = __ldg((const uint4*)(ra + w)), b = __ldg((const uint4*)(rb + w)); acc ^= a.x ^ a.w ^ b.y ^ b.z; }
      else if (WB == 8) { uint2 a = __ldg((const uint2*)(ra + w)), b = __ldg((const uint2*)(rb + w)); acc ^= a.x ^ a.y ^ b.x ^ b.y; }
      else { acc ^= __ldg(ra + w) ^ __ldg(rb + w); }
    }
  }
  if (acc == 0x12345678u) sink[0] = 1.f;
}

// ---------------- host ----------------
static uint16_t h_to_bf(float v) { uint32_t b; memcpy(&b, &v, 4); return (uint16_t)((b + 0x7FFF + ((b >> 16) & 1)) >> 16); }
static float h_bf(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }

struct Timer { cudaEvent_t a, b; Timer() { cudaEventCreate(&a); cudaEventCreate(&b); } };

// Mean time of 40 back-to-back launches (rotating inputs), best of 5 batches, after 100 warm-ups.
template <typename F> static double median_us(F f, int) {
  Timer T;
  for (int i = 0; i < 100; i++) f(i);
  CK(cudaDeviceSynchronize());
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    cudaEventRecord(T.a); for (int i = 0; i < 40; i++) f(i); cudaEventRecord(T.b); cudaEventSynchronize(T.b);
    float ms; cudaEventElapsedTime(&ms, T.a, T.b); best = std::min(best, ms * 1000.0 / 40);
  }
  CK(cudaGetLastError());
  return best;
}

int main(int argc, char** argv) {
  const int COPIES = 8;  // 8 x 28.3 MB rotated: larger than the 60 MB L2
  size_t wWords = (size_t)N * K / 8, gCount = (size_t)N * K / G;
  std::vector<uint32_t> hw(wWords); std::vector<uint16_t> hs(gCount), hb(gCount);
  uint64_t st = 12345;
  auto rnd = [&]() { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
  for (auto& w : hw) w = (uint32_t)rnd();
  for (size_t i = 0; i < gCount; i++) { hs[i] = h_to_bf(0.002f + (rnd() % 1000) * 1e-6f); hb[i] = h_to_bf(-0.015f + (rnd() % 1000) * 1e-5f); }
  const int MAXR = 256;
  std::vector<uint16_t> hx((size_t)MAXR * K);
  for (auto& v : hx) v = h_to_bf(((int)(rnd() % 2001) - 1000) * 1e-3f);
  uint32_t* dw; uint16_t *ds, *db, *dx, *dout; float* dsink;
  CK(cudaMalloc(&dw, wWords * 4 * COPIES)); CK(cudaMalloc(&ds, gCount * 2 * COPIES)); CK(cudaMalloc(&db, gCount * 2 * COPIES));
  CK(cudaMalloc(&dx, hx.size() * 2)); CK(cudaMalloc(&dout, (size_t)MAXR * N * 2)); CK(cudaMalloc(&dsink, 4));
  for (int c = 0; c < COPIES; c++) {
    CK(cudaMemcpy(dw + c * wWords, hw.data(), wWords * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ds + c * gCount, hs.data(), gCount * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db + c * gCount, hb.data(), gCount * 2, cudaMemcpyHostToDevice));
  }
  CK(cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
  double bytes = wWords * 4.0 + gCount * 4.0;
  printf("problem: N=%d K=%d 4-bit g%d bf16; weights+scales+biases = %.2f MB; %d rotated copies\n", N, K, G, bytes / 1e6, COPIES);

  // floor: same bytes, 16-byte loads, 4 in flight per thread, 8 blocks of 256 per SM
  {
    int blocks = 132 * 8;
    double us = median_us([&](int i) { int c = i % COPIES;
      floor_read<<<blocks, 256>>>((const uint4*)(dw + c * wWords), wWords / 4, (const uint4*)(ds + c * gCount), gCount * 2 / 16, dsink); }, 50);
    printf("floor_read      : %8.2f us  (%.2f TB/s; scales only, biases skipped: lower bound)\n", us, (wWords * 4.0 + gCount * 2.0) / us / 1e6);
  }
  // correctness: qmm_mma vs qmv_float (rows 8) and a CPU float64 reference on a sample
  auto ref = [&](int m, int j) {
    double acc = 0;
    for (int kk = 0; kk < K; kk++) {
      uint32_t w = hw[(size_t)j * (K / 8) + kk / 8]; int q = (w >> (4 * (kk % 8))) & 15;
      int gi = j * (K / G) + kk / G;
      acc += (double)h_bf(hx[(size_t)m * K + kk]) * ((double)q * h_bf(hs[gi]) + h_bf(hb[gi]));
    }
    return acc;
  };
  std::vector<uint16_t> o1((size_t)MAXR * N), o2((size_t)MAXR * N);
  {
    int rows = 40;
    dim3 g1((N + 15) / 16, rows);
    qmv_float<2><<<g1, 256>>>(dw, ds, db, dx, dout, N, K);
    CK(cudaMemcpy(o1.data(), dout, (size_t)rows * N * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemset(dout, 0xFF, (size_t)MAXR * N * 2));
    qmm_mma<1, 1, 1, 8, 2, 2, 1><<<dim3(N / 16, (rows + 7) / 8), 256>>>(dw, ds, db, dx, dout, rows, N, K);
    CK(cudaMemcpy(o2.data(), dout, (size_t)rows * N * 2, cudaMemcpyDeviceToHost));
    std::vector<uint16_t> o3((size_t)rows * N);
    CK(cudaMemset(dout, 0xFF, (size_t)MAXR * N * 2));
    qmm_mma<2, 4, 4, 1, 2><<<dim3(N / 128, (rows + 31) / 32), 128>>>(dw, ds, db, dx, dout, rows, N, K);
    CK(cudaMemcpy(o3.data(), dout, (size_t)rows * N * 2, cudaMemcpyDeviceToHost));
    CK(cudaDeviceSynchronize());
    double worst1 = 0, worst2 = 0, worst3 = 0;
    for (int s = 0; s < 400; s++) {
      int m = s % rows, j = (int)(rnd() % N);
      double r = ref(m, j), tol = 1e-2 * fabs(r) + 1e-2;
      worst1 = std::max(worst1, fabs(h_bf(o1[(size_t)m * N + j]) - r) / tol);
      worst2 = std::max(worst2, fabs(h_bf(o2[(size_t)m * N + j]) - r) / tol);
      worst3 = std::max(worst3, fabs(h_bf(o3[(size_t)m * N + j]) - r) / tol);
    }
    printf("check vs float64 (400 samples, 40 rows; <=1 passes |d| <= 1e-2|ref|+1e-2): qmv %.3f  mma small-tile %.3f  mma big-tile %.3f\n", worst1, worst2, worst3);
  }
  // floor variants: 4 or 8 loads in flight, 8 or 16 blocks of 256 per SM
  for (int bl : {8, 16}) {
    double us = median_us([&](int i) { int c = i % COPIES;
      floor_read<<<132 * bl, 256>>>((const uint4*)(dw + c * wWords), wWords / 4, (const uint4*)(ds + c * gCount), gCount * 2 / 16, dsink); }, 0);
    printf("floor_read %2d blk/SM: %8.2f us  (%.2f TB/s)\n", bl, us, (wWords * 4.0 + gCount * 2.0) / us / 1e6);
  }
#define ARGS(c) dw + (c) * wWords, ds + (c) * gCount, db + (c) * gCount, dx, dout
#define RUN(MT, NT, WN, KS, U, SPF, rows, label) do { int rr = (rows); \
    double us = median_us([&](int i) { int c = i % COPIES; \
      qmm_mma<MT, NT, WN, KS, 2, U, SPF><<<dim3(N / (16 * MT * WN), (rr + 8 * NT - 1) / (8 * NT)), 32 * WN * KS>>>(ARGS(c), rr, N, K); }, 0); \
    printf("rows %3d %-34s %8.2f us\n", rr, label, us); } while (0)
  {
    double us = median_us([&](int i) { int c = i % COPIES; qmv_float<2><<<dim3((N + 15) / 16, 1), 256>>>(ARGS(c), N, K); }, 0);
    printf("rows   1 %-34s %8.2f us\n", "qmv_float R=2", us);
    us = median_us([&](int i) { int c = i % COPIES; qmv_float<4><<<dim3((N + 31) / 32, 1), 256>>>(ARGS(c), N, K); }, 0);
    printf("rows   1 %-34s %8.2f us\n", "qmv_float R=4", us);
    us = median_us([&](int i) { int c = i % COPIES; qmv_float<2><<<dim3((N + 15) / 16, 6), 256>>>(ARGS(c), N, K); }, 0);
    printf("rows   6 %-34s %8.2f us\n", "qmv_float R=2", us);
  }
#define FP(WB, IF, BL) do { double us = median_us([&](int i) { int c = i % COPIES; \
      floor_pattern<WB, IF><<<132 * BL, 256>>>(dw + c * wWords, N, K, dsink); }, 0); \
    printf("pattern %2dB x %d in flight, %2d blk/SM: %8.2f us (%.2f TB/s of weights)\n", WB, IF, BL, us, wWords * 4.0 / us / 1e6); } while (0)
  FP(16, 4, 8); FP(16, 2, 8); FP(8, 4, 8); FP(8, 8, 8); FP(8, 4, 4); FP(4, 8, 8); FP(4, 4, 8);
#define RUNW(MT, NT, WN, KS, WPV, U, SPF, rows, label) do { int rr = (rows); \
    double us = median_us([&](int i) { int c = i % COPIES; \
      qmm_mma<MT, NT, WN, KS, WPV, U, SPF><<<dim3(N / (16 * MT * WN), (rr + 8 * NT - 1) / (8 * NT)), 32 * WN * KS>>>(ARGS(c), rr, N, K); }, 0); \
    printf("rows %3d %-34s %8.2f us\n", rr, label, us); } while (0)
  for (int rows : {1, 8}) {
    RUNW(1, 1, 1, 8, 4, 1, 0, rows, "mma 16B loads (wrong groups) ks8");
    RUNW(1, 1, 1, 4, 4, 2, 1, rows, "mma 16B loads ks4 U2 spf");
    RUNW(2, 1, 1, 4, 4, 2, 1, rows, "mma 16B loads mt2 ks4 U2 spf");
    RUNW(1, 1, 1, 8, 2, 1, 0, rows, "mma 8B loads ks8 (as Java)");
  }
#ifndef NO_CUBLAS
  // cuBLAS bf16 dense: out[rows, N] = x[rows, K] * W^T (W [N, K] bf16), 4 rotated copies
  {
    cublasHandle_t h; cublasCreate(&h);
    __nv_bfloat16* dW; size_t wElems = (size_t)N * K; const int DC = 4;
    CK(cudaMalloc(&dW, wElems * 2 * DC)); CK(cudaMemset(dW, 0x3c, wElems * 2 * DC));
    float alpha = 1, beta = 0;
    for (int rows : {1, 8, 16, 32, 256}) {
      double us = median_us([&](int i) { int c = i % DC;
        cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, rows, K, &alpha, dW + c * wElems, CUDA_R_16BF, K, dx, CUDA_R_16BF, K, &beta, dout, CUDA_R_16BF, N,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT); }, 20);
      printf("cublas bf16 dense rows %3d : %8.2f us\n", rows, us);
    }
  }
#endif
  return 0;
}
