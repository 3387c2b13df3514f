package sirocco.runtime.host;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import sirocco.api.KernelContext;
import sirocco.runtime.Dim3;
import sirocco.runtime.KernelExecutionException;

/**
 * Runs a kernel method over a grid on the CPU with GPU semantics. Blocks spread over a pool of
 * platform threads (one per core). A kernel that synchronizes threads (see {@link KernelFeatures})
 * gets every thread of a block as a live virtual thread, so barriers and shuffles are real; any
 * other kernel runs the threads of a block one after another on the pool thread, which is much
 * faster and is a schedule the GPU may also pick.
 *
 * <p>System properties: {@code sirocco.host.threadOrder} = {@code forward} (default), {@code
 * reverse} or {@code random}: the order sequential threads run in, to expose missing barriers;
 * {@code sirocco.host.barrierTimeoutMs} (default 60000): how long a barrier waits before the launch
 * fails as a deadlock.
 */
public final class HostGridRunner {
  /** The most threads a block may have, as on every GPU Sirocco targets. */
  public static final int MAX_BLOCK_THREADS = 1024;

  private static final Map<Method, MethodHandle> HANDLES = new ConcurrentHashMap<>();
  private static final ExecutorService BLOCKS =
      Executors.newFixedThreadPool(
          Math.max(1, Runtime.getRuntime().availableProcessors()),
          Thread.ofPlatform().daemon().name("sirocco-host-block-", 0).factory());

  private HostGridRunner() {}

  /**
   * Checks that {@code kernel} can be invoked (public, in an accessible class) and caches its
   * handle, so a queued launch cannot fail later for a reason known now.
   */
  public static void prepare(Method kernel) {
    HANDLES.computeIfAbsent(kernel, HostGridRunner::spreader);
  }

  /**
   * Runs {@code kernel} over {@code grid} blocks of {@code block} threads. {@code args} are the
   * kernel's parameters after the context: Java arrays and boxed scalars. Returns when every thread
   * has finished.
   *
   * @throws KernelExecutionException when a thread throws, naming the block and thread
   */
  public static void run(Method kernel, Dim3 grid, Dim3 block, Object... args) {
    checkKernel(kernel, args);
    if (block.count() > MAX_BLOCK_THREADS) {
      throw new IllegalArgumentException(
          "block has " + block.count() + " threads; at most " + MAX_BLOCK_THREADS + " are allowed");
    }
    MethodHandle handle = HANDLES.computeIfAbsent(kernel, HostGridRunner::spreader);
    boolean concurrent = KernelFeatures.synchronizesThreads(kernel);
    long timeout = Long.getLong("sirocco.host.barrierTimeoutMs", 60_000L);
    String order = System.getProperty("sirocco.host.threadOrder", "forward");
    int[] gridDims = {grid.x(), grid.y(), grid.z()};
    int[] blockDims = {block.x(), block.y(), block.z()};
    long blocks = grid.count();
    AtomicReference<KernelExecutionException> failure = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    int workers = (int) Math.min(blocks, Math.max(1, Runtime.getRuntime().availableProcessors()));
    java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
    List<Future<?>> futures = new ArrayList<>(workers);
    for (int w = 0; w < workers; w++) {
      futures.add(
          BLOCKS.submit(
              () -> {
                long b;
                while (!stop.get() && (b = next.getAndIncrement()) < blocks) {
                  int bx = (int) (b % gridDims[0]);
                  int by = (int) ((b / gridDims[0]) % gridDims[1]);
                  int bz = (int) (b / ((long) gridDims[0] * gridDims[1]));
                  KernelExecutionException e =
                      concurrent
                          ? runConcurrent(
                              kernel, handle, args, bx, by, bz, gridDims, blockDims, timeout)
                          : runSequential(
                              kernel, handle, args, bx, by, bz, gridDims, blockDims, order);
                  if (e != null) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                  }
                }
              }));
    }
    boolean interrupted = false;
    for (Future<?> f : futures) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          // The kernel's threads use the arrays until they finish: finish waiting, then re-assert.
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          failure.compareAndSet(
              null,
              new KernelExecutionException("kernel " + name(kernel) + " failed", e.getCause()));
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  private static KernelExecutionException runSequential(
      Method kernel,
      MethodHandle handle,
      Object[] args,
      int bx,
      int by,
      int bz,
      int[] grid,
      int[] dims,
      String order) {
    HostBlock block = new HostBlock(dims[0] * dims[1] * dims[2], false, 0);
    HostKernelContext ctx = new HostKernelContext();
    int n = block.threads;
    int[] perm = null;
    if (order.equals("random")) {
      perm = new int[n];
      for (int i = 0; i < n; i++) {
        perm[i] = i;
      }
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      for (int i = n - 1; i > 0; i--) {
        int j = rnd.nextInt(i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
    }
    for (int i = 0; i < n; i++) {
      int linear = perm != null ? perm[i] : order.equals("reverse") ? n - 1 - i : i;
      int tx = linear % dims[0];
      int ty = (linear / dims[0]) % dims[1];
      int tz = linear / (dims[0] * dims[1]);
      ctx.position(block, bx, by, bz, tx, ty, tz, grid, dims);
      try {
        handle.invokeExact((KernelContext) ctx, args);
      } catch (Throwable t) {
        return failed(kernel, bx, by, bz, tx, ty, tz, t);
      }
    }
    return null;
  }

  private static KernelExecutionException runConcurrent(
      Method kernel,
      MethodHandle handle,
      Object[] args,
      int bx,
      int by,
      int bz,
      int[] grid,
      int[] dims,
      long timeout) {
    int n = dims[0] * dims[1] * dims[2];
    HostBlock block = new HostBlock(n, true, timeout);
    Thread[] threads = new Thread[n];
    AtomicReference<KernelExecutionException> first = new AtomicReference<>();
    for (int linear = 0; linear < n; linear++) {
      int tx = linear % dims[0];
      int ty = (linear / dims[0]) % dims[1];
      int tz = linear / (dims[0] * dims[1]);
      HostKernelContext ctx = new HostKernelContext();
      ctx.position(block, bx, by, bz, tx, ty, tz, grid, dims);
      threads[linear] =
          Thread.ofVirtual()
              .unstarted(
                  () -> {
                    try {
                      handle.invokeExact((KernelContext) ctx, args);
                    } catch (HostBlock.BlockAbortedException aborted) {
                      // Another thread failed first; it carries the report.
                    } catch (Throwable t) {
                      first.compareAndSet(null, failed(kernel, bx, by, bz, tx, ty, tz, t));
                      block.fail(t);
                    } finally {
                      block.exited(ctx.localLinear());
                    }
                  });
    }
    for (Thread t : threads) {
      t.start();
    }
    boolean interrupted = false;
    for (Thread t : threads) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (first.get() == null && block.failure() != null) {
      // A deadlock report is raised by the block itself, not by a kernel thread.
      return new KernelExecutionException(
          "kernel "
              + name(kernel)
              + " failed in block "
              + coords(bx, by, bz)
              + ": "
              + block.failure().getMessage(),
          block.failure());
    }
    return first.get();
  }

  private static KernelExecutionException failed(
      Method kernel, int bx, int by, int bz, int tx, int ty, int tz, Throwable t) {
    return new KernelExecutionException(
        "kernel "
            + name(kernel)
            + " failed in block "
            + coords(bx, by, bz)
            + " thread "
            + coords(tx, ty, tz)
            + ": "
            + t,
        t);
  }

  private static String coords(int x, int y, int z) {
    return "(" + x + ", " + y + ", " + z + ")";
  }

  static String name(Method m) {
    return m.getDeclaringClass().getSimpleName() + "." + m.getName();
  }

  private static void checkKernel(Method kernel, Object[] args) {
    if (!Modifier.isStatic(kernel.getModifiers())
        || kernel.getReturnType() != void.class
        || kernel.getParameterCount() == 0
        || kernel.getParameterTypes()[0] != KernelContext.class) {
      throw new IllegalArgumentException(
          "kernel "
              + kernel
              + " must be a static void method whose first parameter is sirocco.api.KernelContext");
    }
    Class<?>[] types = kernel.getParameterTypes();
    if (args.length != types.length - 1) {
      throw new IllegalArgumentException(
          "kernel "
              + name(kernel)
              + " takes "
              + (types.length - 1)
              + " arguments after the context, got "
              + args.length);
    }
    for (int i = 0; i < args.length; i++) {
      Class<?> expected = types[i + 1];
      Object arg = args[i];
      boolean ok =
          expected.isPrimitive()
              ? arg != null && MethodType.methodType(expected).wrap().returnType() == arg.getClass()
              : expected.isInstance(arg);
      if (!ok) {
        throw new IllegalArgumentException(
            "argument "
                + (i + 1)
                + " ("
                + kernel.getParameters()[i + 1].getName()
                + ") of kernel "
                + name(kernel)
                + " must be "
                + expected.getSimpleName()
                + ", got "
                + (arg == null ? "null" : arg.getClass().getSimpleName()));
      }
    }
  }

  private static MethodHandle spreader(Method kernel) {
    try {
      // The kernel's module must export the kernel's package (at least to this module); reading it
      // is
      // ours to add, since the runtime cannot require modules that are written after it.
      Module runtime = HostGridRunner.class.getModule();
      Module owner = kernel.getDeclaringClass().getModule();
      if (runtime.isNamed() && !runtime.canRead(owner)) {
        runtime.addReads(owner);
      }
      MethodHandle mh = MethodHandles.lookup().unreflect(kernel);
      return mh.asSpreader(Object[].class, kernel.getParameterCount() - 1)
          .asType(MethodType.methodType(void.class, KernelContext.class, Object[].class));
    } catch (IllegalAccessException e) {
      throw new IllegalArgumentException(
          "kernel "
              + kernel
              + " is not accessible: it must be public in a public class of an exported package",
          e);
    }
  }
}
