package sirocco.attention;

import sirocco.Backend;

/**
 * The MLX attention ports on the Java backend, at a cut of MLX's sizes that keeps the class near
 * half a minute (the backend runs every GPU thread on the host): the decode shapes and the head-dim
 * sweep take one storage order / one dtype and mask per case in turn instead of all, the sweep
 * stops at Lkv 1500, GQA-long runs two configurations at L 2053 and 1024 (still split-K), the sinks
 * T_kv 1024 and T_q 64. Every case kind and bound is otherwise the GPU's. (All of MLX's sizes pass
 * here too when {@link #sizes()} returns {@link #MLX}, in about three minutes.)
 */
class AttentionMlxJavaTest extends AttentionMlxContract {
  @Override
  Backend backend() {
    return Backend.JAVA;
  }

  @Override
  Sizes sizes() {
    return new Sizes(
        MLX.decodeKeys(),
        MLX.decodeHeads(),
        false,
        new int[] {37, 1500},
        MLX.sweepQueries(),
        false,
        MLX.vectorMaskKeys(),
        new int[][] {{32, 4, 128, 1, 2053}, {64, 8, 64, 2, 1024}},
        new int[] {128, 1024},
        64);
  }
}
