package dev.lockstep.bench;

/** One writer with its own commit user. Not thread-safe: one thread drives it. */
public interface BenchWriter extends AutoCloseable {

  void write(int key, long value, String text) throws Exception;

  /**
   * Prepares and commits what was written since the last commit under {@code identifier}. When the
   * previous call failed, its prepared files are kept and committed again by this call, as a job
   * retrying its checkpoint would (call it again with the same identifier to retry).
   *
   * @return the commit attempts beyond the first (retries), or -1 when the system does not say
   * @throws Exception when the commit failed (for Paimon, a file conflict that requires a restart)
   */
  int commit(long identifier) throws Exception;

  @Override
  void close() throws Exception;
}
