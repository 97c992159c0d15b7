package dev.lockstep.flink;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A pass-through map that counts, per job name, the task attempts after the first: a restart of the
 * job (any cause) re-opens it with attempt number 1, 2, ... (static: the MiniCluster's tasks run in
 * the test's JVM).
 */
final class RestartCounter<T> extends RichMapFunction<T, T> {

  static final ConcurrentHashMap<String, AtomicInteger> RESTARTS = new ConcurrentHashMap<>();

  private final String job;

  RestartCounter(String job) {
    this.job = job;
  }

  static int restarts(String job) {
    return RESTARTS.computeIfAbsent(job, j -> new AtomicInteger()).get();
  }

  @Override
  public void open(OpenContext context) {
    if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0) {
      RESTARTS.computeIfAbsent(job, j -> new AtomicInteger()).incrementAndGet();
    }
  }

  @Override
  public T map(T value) {
    return value;
  }
}
