package sirocco.runtime.host;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import sirocco.runtime.Device;
import sirocco.runtime.Event;
import sirocco.runtime.KernelExecutionException;
import sirocco.runtime.Stream;
import sirocco.runtime.sync.CompletionWorker;
import sirocco.runtime.sync.CooperativeWait;
import sirocco.runtime.sync.WaitOptions;

/**
 * A Java-backend stream: tasks run in order on one worker thread, started when work arrives and
 * ended after a short idle period, so an idle stream holds no thread. Waits go through {@link
 * CooperativeWait} exactly as CUDA waits do (poll, then hand the blocking wait, here a condition
 * wait, to a wait worker), so the options and interrupt rules behave the same on both backends. The
 * first failure of queued work is rethrown by the next {@link #synchronize()}.
 */
final class HostStream implements Stream {
  private static final long IDLE_NANOS = 2_000_000_000L;

  private final HostDevice device;
  private final String name;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition progressed = lock.newCondition();
  private final Condition workArrived = lock.newCondition();
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private long submitted;
  private long completed;
  private Throwable failure;
  private boolean workerRunning;

  HostStream(HostDevice device, String name) {
    this.device = device;
    this.name = name;
  }

  @Override
  public Device device() {
    return device;
  }

  /** Queues a task; returns its sequence number. */
  long submit(Runnable task) {
    lock.lock();
    try {
      queue.add(task);
      long seq = ++submitted;
      if (!workerRunning) {
        workerRunning = true;
        Thread.ofPlatform().daemon().name("sirocco-java-" + name).start(this::drain);
      } else {
        workArrived.signal();
      }
      return seq;
    } finally {
      lock.unlock();
    }
  }

  private void drain() {
    while (true) {
      Runnable task;
      lock.lock();
      try {
        long deadline = System.nanoTime() + IDLE_NANOS;
        while (queue.isEmpty()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            workerRunning = false;
            return;
          }
          try {
            workArrived.awaitNanos(left);
          } catch (InterruptedException e) {
            // Daemon worker: only the JVM ends it; keep serving the queue.
          }
        }
        task = queue.peek();
      } finally {
        lock.unlock();
      }
      Throwable error = null;
      try {
        task.run();
      } catch (Throwable t) {
        error = t;
      }
      lock.lock();
      try {
        queue.poll();
        completed++;
        if (error != null && failure == null) {
          failure = error;
        }
        progressed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Waits until task {@code seq} has run; interrupts are re-asserted after the wait (the work still
   * uses memory).
   */
  void awaitCompleted(long seq) {
    boolean interrupted = false;
    lock.lock();
    try {
      while (completed < seq) {
        try {
          progressed.await();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      lock.unlock();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  boolean isCompleted(long seq) {
    lock.lock();
    try {
      return completed >= seq;
    } finally {
      lock.unlock();
    }
  }

  long lastSubmitted() {
    lock.lock();
    try {
      return submitted;
    } finally {
      lock.unlock();
    }
  }

  private void rethrowFailure() {
    Throwable f;
    lock.lock();
    try {
      f = failure;
      failure = null;
    } finally {
      lock.unlock();
    }
    if (f instanceof KernelExecutionException k) {
      throw new KernelExecutionException(k.getMessage(), k);
    } else if (f instanceof RuntimeException r) {
      throw r;
    } else if (f instanceof Error e) {
      throw e;
    } else if (f != null) {
      throw new KernelExecutionException("work on stream " + name + " failed", f);
    }
  }

  @Override
  public void synchronize(WaitOptions options) {
    awaitSequence(lastSubmitted(), options);
    rethrowFailure();
  }

  /** Waits until everything queued so far has run, leaving any failure for synchronize(). */
  void awaitIdle() {
    awaitSequence(lastSubmitted(), WaitOptions.DEFAULT);
  }

  /** Waits for task {@code seq} as device waits do (cooperatively from virtual threads). */
  void awaitSequence(long seq, WaitOptions options) {
    CooperativeWait.await(() -> isCompleted(seq), () -> awaitCompleted(seq), options);
  }

  /** A completion-worker marker at the current end of the queue. */
  CompletionWorker.Marker marker() {
    long seq = lastSubmitted();
    return new CompletionWorker.Marker() {
      @Override
      public boolean isComplete() {
        return isCompleted(seq);
      }

      @Override
      public void await() {
        awaitCompleted(seq);
      }
    };
  }

  @Override
  public boolean isIdle() {
    return isCompleted(lastSubmitted());
  }

  @Override
  public Event record() {
    HostEvent event = new HostEvent(this);
    event.sequence = submit(event::reached);
    return event;
  }

  @Override
  public void waitFor(Event event) {
    if (!(event instanceof HostEvent e)) {
      throw new IllegalArgumentException("event must come from the Java backend");
    }
    submit(() -> e.stream.awaitCompleted(e.sequence));
  }

  @Override
  public String toString() {
    return "java stream " + name;
  }
}
