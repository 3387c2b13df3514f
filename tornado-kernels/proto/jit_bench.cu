// Loads and times Sirocco-JIT PTX (from JitEmit.java) of AffineQmvKernel.qmv and QmmMmaKernel.qmm (4-bit g64 bf16) on 12288x4096.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <string>
#include <vector>
#include <fstream>
#include <sstream>
#include <algorithm>
#define CK(x) do { auto e = (x); if (e) { printf("err %d at %d\n", (int)e, __LINE__); exit(1);} } while (0)
static const int N = 12288, K = 4096, G = 64, COPIES = 8;
static uint16_t hbf(float v) { uint32_t b; memcpy(&b, &v, 4); return (uint16_t)((b + 0x7FFF + ((b >> 16) & 1)) >> 16); }
static float fbf(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static CUfunction load(const char* path) {
  std::ifstream in(path); std::stringstream ss; ss << in.rdbuf(); std::string p = ss.str();
  size_t a = p.find(".entry ") + 7, b = p.find("(", a); std::string name = p.substr(a, b - a);
  CUmodule m; CK(cuModuleLoadData(&m, p.c_str())); CUfunction f; CK(cuModuleGetFunction(&f, m, name.c_str()));
  int regs; cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f); printf("%s: %s, %d registers\n", path, name.c_str(), regs);
  return f;
}
int main() {
  size_t ww = (size_t)N * K / 8, gc = (size_t)N * K / G;
  std::vector<uint32_t> hw(ww); std::vector<uint16_t> hs(gc), hb(gc), hx(256 * (size_t)K);
  uint64_t st = 12345; auto rnd = [&]() { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
  for (auto& w : hw) w = (uint32_t)rnd();
  for (size_t i = 0; i < gc; i++) { hs[i] = hbf(0.002f + (rnd() % 1000) * 1e-6f); hb[i] = hbf(-0.015f + (rnd() % 1000) * 1e-5f); }
  for (auto& v : hx) v = hbf(((int)(rnd() % 2001) - 1000) * 1e-3f);
  CUdeviceptr dw, ds, db, dx, dout, dfp, dgs;
  cudaFree(0);
  CK(cuMemAlloc(&dw, ww * 4 * COPIES)); CK(cuMemAlloc(&ds, gc * 2 * COPIES)); CK(cuMemAlloc(&db, gc * 2 * COPIES));
  CK(cuMemAlloc(&dx, hx.size() * 2)); CK(cuMemAlloc(&dout, 256 * (size_t)N * 2)); CK(cuMemAlloc(&dfp, 16)); CK(cuMemAlloc(&dgs, 16));
  for (int c = 0; c < COPIES; c++) { CK(cuMemcpyHtoD(dw + c * ww * 4, hw.data(), ww * 4)); CK(cuMemcpyHtoD(ds + c * gc * 2, hs.data(), gc * 2)); CK(cuMemcpyHtoD(db + c * gc * 2, hb.data(), gc * 2)); }
  CK(cuMemcpyHtoD(dx, hx.data(), hx.size() * 2));
  CUfunction qmv = load("qmv_r2.ptx"), mma = load("mma_s.ptx");
  auto launch = [&](bool isMma, int rows, int c) {
    CUdeviceptr w = dw + c * ww * 4, s = ds + c * gc * 2, b = db + c * gc * 2; int n = N, k = K;
    if (isMma) { void* a[] = {&w, &s, &b, &dfp, &dgs, &dx, &dout, &rows, &n, &k}; CK(cuLaunchKernel(mma, N / 32, (rows + 7) / 8, 1, 128, 1, 1, 0, 0, a, 0)); }
    else { void* a[] = {&w, &s, &b, &dx, &dout, &n, &k}; CK(cuLaunchKernel(qmv, N / 16, rows, 1, 256, 1, 1, 0, 0, a, 0)); }
  };
  auto ref = [&](int m, int j) { double acc = 0;
    for (int kk = 0; kk < K; kk++) { int q = (hw[(size_t)j * (K / 8) + kk / 8] >> (4 * (kk % 8))) & 15; int gi = j * (K / G) + kk / G;
      acc += (double)fbf(hx[(size_t)m * K + kk]) * ((double)q * fbf(hs[gi]) + fbf(hb[gi])); } return acc; };
  for (int isMma = 0; isMma < 2; isMma++) {
    int rows = isMma ? 8 : 3;
    CK(cuMemsetD8(dout, 0xFF, 256 * (size_t)N * 2)); launch(isMma, rows, 0); CK(cuCtxSynchronize());
    std::vector<uint16_t> o((size_t)rows * N); CK(cuMemcpyDtoH(o.data(), dout, o.size() * 2));
    double worst = 0; for (int s = 0; s < 400; s++) { int m = s % rows, j = (int)(rnd() % N); double r = ref(m, j);
      worst = std::max(worst, fabs(fbf(o[(size_t)m * N + j]) - r) / (1e-2 * fabs(r) + 1e-2)); }
    int nan = 0; for (auto v : o) nan += (v & 0x7F80) == 0x7F80;
    printf("%s rows %d: worst |d|/(1e-2|ref|+1e-2) = %.3f over 400 samples, %d NaN/unwritten\n", isMma ? "mma" : "qmv", rows, worst, nan);
  }
  CUevent e0, e1; cuEventCreate(&e0, 0); cuEventCreate(&e1, 0);
  for (int isMma = 0; isMma < 2; isMma++) for (int rows : {1, 2, 4, 6, 7, 8}) {
    if (!isMma && rows > 1 && rows != 6) continue;
    for (int i = 0; i < 100; i++) launch(isMma, rows, i % COPIES);
    double best = 1e30;
    for (int r = 0; r < 5; r++) { cuEventRecord(e0, 0); for (int i = 0; i < 40; i++) launch(isMma, rows, i % COPIES); cuEventRecord(e1, 0);
      cuEventSynchronize(e1); float ms; cuEventElapsedTime(&ms, e0, e1); best = std::min(best, ms * 1000.0 / 40); }
    printf("JIT %s rows %d: %.2f us\n", isMma ? "QmmMmaKernel (mt2 ks4)" : "AffineQmvKernel (R=2)", rows, best);
  }
  return 0;
}
