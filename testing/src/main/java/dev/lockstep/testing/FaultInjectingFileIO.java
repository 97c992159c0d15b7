package dev.lockstep.testing;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.UncertainWriteException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Wraps any {@link FileIO} and injects faults per call, for tests only. {@link #wrap} keeps the
 * delegate's capabilities: the wrapper is a {@link SupportsAtomicCreate} and/or {@link
 * SupportsAtomicRename} exactly when the delegate is.
 *
 * <p>Faults ({@link Fault}):
 *
 * <ul>
 *   <li>{@link Fault#FAIL_BEFORE_LANDING}: the call throws a plain {@link IOException} and the
 *       delegate is never asked; nothing changes in the store.
 *   <li>{@link Fault#LOSE_ANSWER_AFTER_LANDING} (mutations only): the delegate performs the call,
 *       then the wrapper throws {@link UncertainWriteException} as if the answer had been lost.
 *       When the delegate itself fails (a conflict, say), its exception passes through unchanged.
 * </ul>
 *
 * <p>Faults are armed per {@link Operation}: for the next n calls ({@link #failNext}), for calls on
 * matching paths ({@link #failNextMatching}), or with a probability from a seeded {@link Random}
 * ({@link #failRandomly}). A {@link #beforeLanding hook} runs just before a call reaches the
 * delegate, to pause or to revoke a lease at that exact moment. For {@link Operation#WRITE} the
 * decision is taken when the stream opens and applied when it closes (the moment of landing); a
 * faulted or hooked stream buffers its bytes and only opens the delegate's stream on close.
 *
 * <p>Counters: {@link #calls(Operation)}, {@link #injected(Operation, Fault)}, {@link #injected()}.
 * Thread-safe.
 */
public class FaultInjectingFileIO implements FileIO {

  /** The calls faults can be armed on. */
  public enum Operation {
    /** {@link SupportsAtomicCreate#createAtomically}. */
    CREATE(true),
    /** {@link SupportsAtomicRename#renameAtomically}. */
    RENAME(true),
    /** {@link FileIO#newOutputStream}; applied when the stream closes. */
    WRITE(true),
    /** {@link FileIO#delete}. */
    DELETE(true),
    /** {@link FileIO#mkdirs}. */
    MKDIRS(true),
    /** {@link FileIO#newInputStream}. */
    READ(false),
    /** {@link FileIO#getStatus}. */
    STATUS(false),
    /** {@link FileIO#exists}. */
    EXISTS(false),
    /** {@link FileIO#list}. */
    LIST(false);

    private final boolean mutation;

    Operation(boolean mutation) {
      this.mutation = mutation;
    }

    /** Whether the call changes the store (and so can land and lose its answer). */
    public boolean isMutation() {
      return mutation;
    }
  }

  /** What goes wrong. */
  public enum Fault {
    /** Throw before the delegate is asked: nothing lands. */
    FAIL_BEFORE_LANDING,
    /** Let the delegate land the change, then throw {@link UncertainWriteException}. */
    LOSE_ANSWER_AFTER_LANDING
  }

  /** Code run just before a mutation reaches the delegate; it may block or throw. */
  @FunctionalInterface
  public interface Hook {
    void run(Operation operation, Path path) throws IOException;
  }

  private final FileIO delegate;
  private final Object lock = new Object();
  private final List<Rule> rules = new ArrayList<>(); // guarded by lock
  private final Map<Operation, Hook> hooks = new EnumMap<>(Operation.class); // guarded by lock
  private final Map<Operation, AtomicLong> calls = new EnumMap<>(Operation.class);
  private final Map<Operation, Map<Fault, AtomicLong>> injected = new EnumMap<>(Operation.class);

  /** Use {@link #wrap}, which keeps the delegate's capabilities. */
  protected FaultInjectingFileIO(FileIO delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    for (Operation operation : Operation.values()) {
      calls.put(operation, new AtomicLong());
      Map<Fault, AtomicLong> byFault = new EnumMap<>(Fault.class);
      for (Fault fault : Fault.values()) {
        byFault.put(fault, new AtomicLong());
      }
      injected.put(operation, byFault);
    }
  }

  /**
   * Wraps {@code delegate}. The result implements {@link SupportsAtomicCreate} and {@link
   * SupportsAtomicRename} exactly when the delegate does.
   */
  public static FaultInjectingFileIO wrap(FileIO delegate) {
    boolean create = delegate instanceof SupportsAtomicCreate;
    boolean rename = delegate instanceof SupportsAtomicRename;
    if (create && rename) {
      return new WithCreateAndRename(delegate);
    }
    if (create) {
      return new WithCreate(delegate);
    }
    if (rename) {
      return new WithRename(delegate);
    }
    return new FaultInjectingFileIO(delegate);
  }

  /** The wrapped store. */
  public FileIO delegate() {
    return delegate;
  }

  /** Arms {@code fault} for the next {@code times} calls of {@code operation}. */
  public FaultInjectingFileIO failNext(Operation operation, Fault fault, int times) {
    return failNextMatching(operation, path -> true, fault, times);
  }

  /** Arms {@code fault} for the next call of {@code operation}. */
  public FaultInjectingFileIO failNext(Operation operation, Fault fault) {
    return failNext(operation, fault, 1);
  }

  /**
   * Arms {@code fault} for the next {@code times} calls of {@code operation} on a matching path.
   */
  public FaultInjectingFileIO failNextMatching(
      Operation operation, Predicate<Path> paths, Fault fault, int times) {
    check(operation, fault);
    if (times < 1) {
      throw new IllegalArgumentException("times must be at least 1: " + times);
    }
    synchronized (lock) {
      rules.add(new Rule(operation, paths, fault, times, 1.0, null));
    }
    return this;
  }

  /**
   * Arms {@code fault} on every call of {@code operation} with {@code probability}, drawn from a
   * {@link Random} seeded with {@code seed} so that a failing run can be replayed.
   */
  public FaultInjectingFileIO failRandomly(
      Operation operation, Fault fault, double probability, long seed) {
    check(operation, fault);
    if (!(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException("probability must be within [0, 1]: " + probability);
    }
    synchronized (lock) {
      rules.add(
          new Rule(
              operation, path -> true, fault, Integer.MAX_VALUE, probability, new Random(seed)));
    }
    return this;
  }

  /**
   * Runs {@code hook} before every call of {@code operation} reaches the delegate: for a mutation
   * just before it lands, for a read just before it is served ({@code null} clears). A hook that
   * throws stops the call there.
   */
  public FaultInjectingFileIO beforeLanding(Operation operation, Hook hook) {
    synchronized (lock) {
      if (hook == null) {
        hooks.remove(operation);
      } else {
        hooks.put(operation, hook);
      }
    }
    return this;
  }

  /** Disarms every fault and hook; counters keep their values. */
  public void clearFaults() {
    synchronized (lock) {
      rules.clear();
      hooks.clear();
    }
  }

  /** How many calls of {@code operation} were made, faulted or not. */
  public long calls(Operation operation) {
    return calls.get(operation).get();
  }

  /** How many times {@code fault} was injected into {@code operation}. */
  public long injected(Operation operation, Fault fault) {
    return injected.get(operation).get(fault).get();
  }

  /** How many faults were injected in all. */
  public long injected() {
    long sum = 0;
    for (Map<Fault, AtomicLong> byFault : injected.values()) {
      for (AtomicLong count : byFault.values()) {
        sum += count.get();
      }
    }
    return sum;
  }

  private static void check(Operation operation, Fault fault) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fault, "fault");
    if (fault == Fault.LOSE_ANSWER_AFTER_LANDING && !operation.isMutation()) {
      throw new IllegalArgumentException(
          operation
              + " changes nothing, so it cannot land and lose"
              + " its answer; use FAIL_BEFORE_LANDING");
    }
  }

  /** Counts the call and consumes the first matching armed rule. */
  private Fault decide(Operation operation, Path path) {
    calls.get(operation).incrementAndGet();
    synchronized (lock) {
      for (int i = 0; i < rules.size(); i++) {
        Rule rule = rules.get(i);
        if (rule.operation != operation || !rule.paths.test(path)) {
          continue;
        }
        if (rule.random != null && rule.random.nextDouble() >= rule.probability) {
          continue;
        }
        if (--rule.remaining <= 0) {
          rules.remove(i);
        }
        return rule.fault;
      }
      return null;
    }
  }

  private Hook hook(Operation operation) {
    synchronized (lock) {
      return hooks.get(operation);
    }
  }

  private IOException injectedFailure(Operation operation, Path path) {
    injected.get(operation).get(Fault.FAIL_BEFORE_LANDING).incrementAndGet();
    return new IOException("Injected failure before landing: " + operation + " " + path);
  }

  private UncertainWriteException lostAnswer(Operation operation, Path path) {
    injected.get(operation).get(Fault.LOSE_ANSWER_AFTER_LANDING).incrementAndGet();
    return new UncertainWriteException(
        path, "injected: " + operation + " landed, answer lost", null);
  }

  @FunctionalInterface
  private interface Mutation<T> {
    T run() throws IOException;
  }

  /** Applies the armed fault and hook around one mutation. */
  private <T> T mutate(Operation operation, Path path, Mutation<T> call) throws IOException {
    Fault fault = decide(operation, path);
    if (fault == Fault.FAIL_BEFORE_LANDING) {
      throw injectedFailure(operation, path);
    }
    Hook hook = hook(operation);
    if (hook != null) {
      hook.run(operation, path);
    }
    T result = call.run();
    if (fault == Fault.LOSE_ANSWER_AFTER_LANDING) {
      throw lostAnswer(operation, path);
    }
    return result;
  }

  private <T> T read(Operation operation, Path path, Mutation<T> call) throws IOException {
    if (decide(operation, path) == Fault.FAIL_BEFORE_LANDING) {
      throw injectedFailure(operation, path);
    }
    Hook hook = hook(operation);
    if (hook != null) {
      hook.run(operation, path);
    }
    return call.run();
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    return read(Operation.READ, path, () -> delegate.newInputStream(path));
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    Fault fault = decide(Operation.WRITE, path);
    Hook hook = hook(Operation.WRITE);
    if (fault == null && hook == null) {
      return delegate.newOutputStream(path, overwrite);
    }
    if (fault == Fault.LOSE_ANSWER_AFTER_LANDING && hook == null) {
      OutputStream out = delegate.newOutputStream(path, overwrite);
      return new LostAnswerStream(out, path);
    }
    if (!overwrite && delegate.exists(path)) {
      throw new java.nio.file.FileAlreadyExistsException(
          path.toString(), null, "the file exists and overwrite=false");
    }
    return new DeferredStream(path, overwrite, fault, hook);
  }

  /** Passes bytes through; throws {@link UncertainWriteException} after the delegate's close. */
  private final class LostAnswerStream extends OutputStream {
    private final OutputStream out;
    private final Path path;
    private boolean closed;

    LostAnswerStream(OutputStream out, Path path) {
      this.out = out;
      this.path = path;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      out.close();
      throw lostAnswer(Operation.WRITE, path);
    }
  }

  /** Buffers bytes; on close applies the fault and hook, then writes through the delegate. */
  private final class DeferredStream extends BufferedWrite {
    private final Path path;
    private final boolean overwrite;
    private final Fault fault;
    private final Hook hook;

    DeferredStream(Path path, boolean overwrite, Fault fault, Hook hook) {
      this.path = path;
      this.overwrite = overwrite;
      this.fault = fault;
      this.hook = hook;
    }

    @Override
    protected void land(ByteArrayOutputStream buffer) throws IOException {
      if (fault == Fault.FAIL_BEFORE_LANDING) {
        throw injectedFailure(Operation.WRITE, path);
      }
      if (hook != null) {
        hook.run(Operation.WRITE, path);
      }
      try (OutputStream out = delegate.newOutputStream(path, overwrite)) {
        buffer.writeTo(out);
      }
      if (fault == Fault.LOSE_ANSWER_AFTER_LANDING) {
        throw lostAnswer(Operation.WRITE, path);
      }
    }
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    return read(Operation.STATUS, path, () -> delegate.getStatus(path));
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return read(Operation.EXISTS, path, () -> delegate.exists(path));
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    return read(Operation.LIST, directory, () -> delegate.list(directory));
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    return mutate(Operation.DELETE, path, () -> delegate.delete(path, recursive));
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    return mutate(Operation.MKDIRS, path, () -> delegate.mkdirs(path));
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  /** Shared by the subclasses that keep {@link SupportsAtomicCreate}. */
  protected void createAtomicallyThrough(Path path, byte[] content) throws IOException {
    mutate(
        Operation.CREATE,
        path,
        () -> {
          ((SupportsAtomicCreate) delegate).createAtomically(path, content);
          return null;
        });
  }

  /** Shared by the subclasses that keep {@link SupportsAtomicRename}. */
  protected void renameAtomicallyThrough(Path source, Path target) throws IOException {
    mutate(
        Operation.RENAME,
        target,
        () -> {
          ((SupportsAtomicRename) delegate).renameAtomically(source, target);
          return null;
        });
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }

  private static final class Rule {
    final Operation operation;
    final Predicate<Path> paths;
    final Fault fault;
    int remaining;
    final double probability;
    final Random random;

    Rule(
        Operation operation,
        Predicate<Path> paths,
        Fault fault,
        int remaining,
        double probability,
        Random random) {
      this.operation = operation;
      this.paths = paths;
      this.fault = fault;
      this.remaining = remaining;
      this.probability = probability;
      this.random = random;
    }
  }

  private static final class WithCreate extends FaultInjectingFileIO
      implements SupportsAtomicCreate {
    WithCreate(FileIO delegate) {
      super(delegate);
    }

    @Override
    public void createAtomically(Path path, byte[] content) throws IOException {
      createAtomicallyThrough(path, content);
    }
  }

  private static final class WithRename extends FaultInjectingFileIO
      implements SupportsAtomicRename {
    WithRename(FileIO delegate) {
      super(delegate);
    }

    @Override
    public void renameAtomically(Path source, Path target) throws IOException {
      renameAtomicallyThrough(source, target);
    }
  }

  private static final class WithCreateAndRename extends FaultInjectingFileIO
      implements SupportsAtomicCreate, SupportsAtomicRename {
    WithCreateAndRename(FileIO delegate) {
      super(delegate);
    }

    @Override
    public void createAtomically(Path path, byte[] content) throws IOException {
      createAtomicallyThrough(path, content);
    }

    @Override
    public void renameAtomically(Path source, Path target) throws IOException {
      renameAtomicallyThrough(source, target);
    }
  }
}
