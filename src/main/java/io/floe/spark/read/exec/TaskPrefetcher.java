package io.floe.spark.read.exec;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;

/**
 * Opens the file tasks of one input partition in order, up to {@code depth} tasks ahead of the one
 * being read, on a shared pool of daemon threads: while a reader decodes one file, the next files'
 * streams, footers and delete files are already being fetched, which hides most of the latency of
 * object storage. With a depth of 0 every task is opened by the calling thread when it is needed.
 *
 * <p>Not thread-safe: one reader thread calls {@link #next()} and {@link #close()}. An exception
 * thrown while opening a task surfaces from the {@link #next()} call that returns that task.
 * {@link #close()} closes every file opened ahead and not handed out.
 *
 * @param <T> what an opened task is
 */
final class TaskPrefetcher<T extends Closeable> implements Closeable {
  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(
          new ThreadFactory() {
            private final AtomicInteger count = new AtomicInteger();

            @Override
            public Thread newThread(Runnable runnable) {
              Thread thread = new Thread(runnable, "floe-prefetch-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            }
          });

  private final Iterator<FileScanTask> tasks;
  private final int depth;
  private final Function<FileScanTask, T> opener;
  private final Deque<Slot<T>> ahead = new ArrayDeque<>();

  TaskPrefetcher(List<FileScanTask> tasks, int depth, Function<FileScanTask, T> opener) {
    this.tasks = tasks.iterator();
    this.depth = depth;
    this.opener = opener;
  }

  boolean hasNext() {
    return !ahead.isEmpty() || tasks.hasNext();
  }

  /** Returns the next task, opened; the caller closes it. */
  T next() throws IOException {
    T opened = ahead.isEmpty() ? opener.apply(tasks.next()) : ahead.removeFirst().await();
    while (ahead.size() < depth && tasks.hasNext()) {
      Slot<T> slot = new Slot<>(tasks.next(), opener);
      ahead.addLast(slot);
      POOL.execute(slot);
    }
    return opened;
  }

  @Override
  public void close() throws IOException {
    IOException failure = null;
    while (!ahead.isEmpty()) {
      try {
        ahead.removeFirst().abandon();
      } catch (IOException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * One task being opened in the background. An abandoning reader waits for an open in progress and
   * closes its result; if the reader is interrupted while waiting, the opening thread closes it.
   */
  private static final class Slot<T extends Closeable> implements Runnable {
    private final FileScanTask task;
    private final Function<FileScanTask, T> opener;
    private T value;
    private Throwable error;
    private boolean started;
    private boolean done;
    private boolean abandoned;
    private boolean orphaned;

    Slot(FileScanTask task, Function<FileScanTask, T> opener) {
      this.task = task;
      this.opener = opener;
    }

    @Override
    public void run() {
      synchronized (this) {
        if (abandoned) {
          return;
        }
        started = true;
      }
      T opened = null;
      Throwable failure = null;
      try {
        opened = opener.apply(task);
      } catch (Throwable t) {
        failure = t;
      }
      boolean closeNow;
      synchronized (this) {
        value = opened;
        error = failure;
        done = true;
        closeNow = orphaned;
        if (orphaned) {
          value = null;
        }
        notifyAll();
      }
      if (closeNow && opened != null) {
        closeQuietly(opened);
      }
    }

    synchronized T await() throws IOException {
      while (!done) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          abandoned = true;
          orphaned = true;
          throw new IOException(
              "Cannot read " + task.file().location() + ": interrupted while opening it", e);
        }
      }
      if (error instanceof RuntimeException) {
        throw (RuntimeException) error;
      }
      if (error instanceof Error) {
        throw (Error) error;
      }
      if (error != null) {
        throw new IOException("Cannot read " + task.file().location() + ": " + error, error);
      }
      return value;
    }

    /** Closes what this slot opened; waits for an open in progress, so nothing stays open. */
    void abandon() throws IOException {
      T toClose;
      synchronized (this) {
        abandoned = true;
        try {
          while (started && !done) {
            wait();
          }
        } catch (InterruptedException e) {
          // the opening thread closes what it opens once it sees nobody waits for it
          orphaned = true;
          Thread.currentThread().interrupt();
          return;
        }
        toClose = done ? value : null;
        value = null;
      }
      if (toClose != null) {
        toClose.close();
      }
    }

    private static void closeQuietly(Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException | RuntimeException e) {
        // an abandoned file: nobody reads it, and its reader has already finished or failed
      }
    }
  }
}
