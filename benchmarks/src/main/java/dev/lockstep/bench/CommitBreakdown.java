package dev.lockstep.bench;

import dev.lockstep.bench.lockstep.CountingFileIO;
import dev.lockstep.bench.lockstep.CountingFileIO.Count;
import dev.lockstep.bench.lockstep.CountingFileIO.Kind;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What each measured commit of {@code ScaleBench}'s history part did, so that its latency tail is
 * explained by counts rather than guessed: wall and CPU time, the store's counters ({@link
 * CountingFileIO}: metadata files and bytes read and written, listings, the snapshot publish and
 * its fsync), garbage collections and JIT compilation that overlapped it. Not thread-safe.
 */
public final class CommitBreakdown {

  /** One commit. {@code store} is the difference of the store's counters (null: not counted). */
  public record Sample(
      long wallNanos,
      long threadCpuNanos,
      long processCpuNanos,
      long gcCount,
      long gcMillis,
      long jitMillis,
      long[] store) {

    long get(Kind kind, Count count) {
      return store == null ? 0 : store[CountingFileIO.index(kind, count)];
    }

    /** Manifests (not lists) written: the delta, plus any a merge wrote. */
    long manifestsWritten() {
      return get(Kind.MANIFEST, Count.FILES_WRITTEN);
    }

    /** A merge wrote manifests besides the commit's own delta manifest. */
    boolean merged() {
      return manifestsWritten() > 1;
    }

    /** A base manifest list was written besides the commit's delta list. */
    boolean wroteBaseList() {
      return get(Kind.MANIFEST_LIST, Count.FILES_WRITTEN) > 1;
    }

    long metadataBytesWritten() {
      return get(Kind.MANIFEST, Count.BYTES_WRITTEN)
          + get(Kind.MANIFEST_LIST, Count.BYTES_WRITTEN)
          + get(Kind.SNAPSHOT, Count.BYTES_WRITTEN);
    }

    long metadataBytesRead() {
      return get(Kind.MANIFEST, Count.BYTES_READ)
          + get(Kind.MANIFEST_LIST, Count.BYTES_READ)
          + get(Kind.SNAPSHOT, Count.BYTES_READ);
    }

    long metadataOpens() {
      return get(Kind.MANIFEST, Count.OPENS)
          + get(Kind.MANIFEST_LIST, Count.OPENS)
          + get(Kind.SNAPSHOT, Count.OPENS);
    }

    long publishNanos() {
      return store == null ? 0 : store[CountingFileIO.PUBLISH_NANOS];
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final List<GarbageCollectorMXBean> GCS =
      ManagementFactory.getGarbageCollectorMXBeans();

  private final List<Sample> samples = new ArrayList<>();
  private final BenchTable table;

  private long t0;
  private long cpu0;
  private long proc0;
  private long gcCount0;
  private long gcMillis0;
  private long jit0;
  private long[] store0;

  public CommitBreakdown(BenchTable table) {
    this.table = table;
  }

  /** Right before a measured commit. */
  public void begin() {
    store0 = table.storeCounters();
    gcCount0 = gcCount();
    gcMillis0 = gcMillis();
    jit0 = jitMillis();
    proc0 = processCpu();
    cpu0 = THREADS.getCurrentThreadCpuTime();
    t0 = System.nanoTime();
  }

  /** Right after it. */
  public void end() {
    long wall = System.nanoTime() - t0;
    long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
    long proc = processCpu() - proc0;
    long[] store = table.storeCounters();
    if (store != null && store0 != null) {
      for (int i = 0; i < store.length; i++) {
        store[i] -= store0[i];
      }
    } else {
      store = null;
    }
    samples.add(
        new Sample(
            wall,
            cpu,
            proc,
            gcCount() - gcCount0,
            gcMillis() - gcMillis0,
            jitMillis() - jit0,
            store));
  }

  public List<Sample> samples() {
    return samples;
  }

  /** The {@code p}-th percentile of wall time in ms, nearest rank. */
  public double wallPercentileMillis(double p) {
    return percentile(samples.stream().mapToLong(Sample::wallNanos).toArray(), p) / 1e6;
  }

  public double threadCpuPercentileMillis(double p) {
    return percentile(samples.stream().mapToLong(Sample::threadCpuNanos).toArray(), p) / 1e6;
  }

  /** Nearest-rank percentile: the {@code ceil(p / 100 * n)}-th smallest. */
  static long percentile(long[] values, double p) {
    if (values.length == 0) {
      return 0;
    }
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
  }

  /** How many commits are above the p99 rank: the p99 is the (this + 1)-th slowest. */
  public int slowerThanP99() {
    int n = samples.size();
    int rank = (int) Math.ceil(0.99 * n);
    return n - Math.max(1, rank);
  }

  /** The slowest 1 % (at least one), slowest first. */
  public List<Sample> slowest() {
    int k = Math.max(1, (int) Math.ceil(samples.size() / 100.0));
    return samples.stream()
        .sorted(Comparator.comparingLong(Sample::wallNanos).reversed())
        .limit(k)
        .toList();
  }

  /** A multi-line summary (Markdown list items) of the counts, for the log and the report. */
  public String summary() {
    int n = samples.size();
    if (n == 0) {
      return "";
    }
    long merges = samples.stream().filter(Sample::merged).count();
    long bases = samples.stream().filter(Sample::wroteBaseList).count();
    long withGc = samples.stream().filter(s -> s.gcCount() > 0).count();
    long withJit = samples.stream().filter(s -> s.jitMillis() > 0).count();
    long snapshotListings =
        samples.stream().mapToLong(s -> s.get(Kind.SNAPSHOT, Count.LISTINGS)).sum();
    long listedEntries =
        samples.stream().mapToLong(s -> s.get(Kind.SNAPSHOT, Count.LISTED_ENTRIES)).sum();
    long maxWritten = samples.stream().mapToLong(Sample::metadataBytesWritten).max().orElse(0);
    double meanWritten =
        samples.stream().mapToLong(Sample::metadataBytesWritten).average().orElse(0);
    double meanRead = samples.stream().mapToLong(Sample::metadataBytesRead).average().orElse(0);
    long maxRead = samples.stream().mapToLong(Sample::metadataBytesRead).max().orElse(0);
    double mergeWall =
        samples.stream().filter(Sample::merged).mapToLong(Sample::wallNanos).average().orElse(0)
            / 1e6;
    double otherWall =
        samples.stream().filter(s -> !s.merged()).mapToLong(Sample::wallNanos).average().orElse(0)
            / 1e6;
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "  - %d commits: wall p50 %.2f, p90 %.2f, p99 %.2f (the %d-th slowest), max %.2f ms;"
                + " thread CPU p50 %.2f, p99 %.2f ms; snapshot publish (fsync) p50 %.2f, p99 %.2f"
                + " ms%n",
            n,
            wallPercentileMillis(50),
            wallPercentileMillis(90),
            wallPercentileMillis(99),
            slowerThanP99() + 1,
            wallPercentileMillis(100),
            threadCpuPercentileMillis(50),
            threadCpuPercentileMillis(99),
            percentile(samples.stream().mapToLong(Sample::publishNanos).toArray(), 50) / 1e6,
            percentile(samples.stream().mapToLong(Sample::publishNanos).toArray(), 99) / 1e6));
    out.append(
        String.format(
            Locale.ROOT,
            "  - %d wrote a base list, %d merged manifests (mean wall %.2f ms against %.2f ms for"
                + " the others); metadata bytes written per commit mean %.0f, max %d; read mean"
                + " %.0f, max %d; snapshot-directory listings %d (%d entries listed); %d commits"
                + " overlapped a GC, %d overlapped JIT compilation%n",
            bases,
            merges,
            mergeWall,
            otherWall,
            meanWritten,
            maxWritten,
            meanRead,
            maxRead,
            snapshotListings,
            listedEntries,
            withGc,
            withJit));
    out.append("  - slowest 1 %: ");
    List<String> rows = new ArrayList<>();
    for (Sample s : slowest()) {
      rows.add(
          String.format(
              Locale.ROOT,
              "%.2f ms (CPU %.2f, process CPU %.2f, publish %.2f; %s; manifests written %d, %d"
                  + " metadata bytes written, %d read in %d files; GC %d (%d ms), JIT %d ms)",
              s.wallNanos() / 1e6,
              s.threadCpuNanos() / 1e6,
              s.processCpuNanos() / 1e6,
              s.publishNanos() / 1e6,
              s.merged() ? "merged" : s.wroteBaseList() ? "base list" : "delta only",
              s.manifestsWritten(),
              s.metadataBytesWritten(),
              s.metadataBytesRead(),
              s.metadataOpens(),
              s.gcCount(),
              s.gcMillis(),
              s.jitMillis()));
    }
    out.append(String.join("; ", rows)).append(System.lineSeparator());
    return out.toString();
  }

  private static long gcCount() {
    long n = 0;
    for (GarbageCollectorMXBean gc : GCS) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  private static long gcMillis() {
    long n = 0;
    for (GarbageCollectorMXBean gc : GCS) {
      n += Math.max(0, gc.getCollectionTime());
    }
    return n;
  }

  private static long jitMillis() {
    var jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime()
        : 0;
  }

  private static long processCpu() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }
}
