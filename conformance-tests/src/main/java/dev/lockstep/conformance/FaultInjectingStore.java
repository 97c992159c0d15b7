package dev.lockstep.conformance;

import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
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
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Wraps any {@link FileIO} and injects faults per call: the kit's checks under faults run on it,
 * and so do the project's own tests. {@link #wrap} keeps the store's capabilities: the wrapper is a
 * {@link SupportsAtomicCreate} and/or {@link SupportsAtomicRename} exactly when the store is.
 *
 * <p>Faults ({@link Fault}, per {@link Operation}):
 *
 * <ul>
 *   <li>{@link Fault#FAIL_BEFORE_LANDING}: the call throws a plain {@link IOException} and the
 *       store is never asked; nothing changes in the store.
 *   <li>{@link Fault#LOSE_ANSWER_AFTER_LANDING} (mutations): the store performs the call, then the
 *       wrapper throws {@link UncertainWriteException} as if the answer had been lost. When the
 *       store itself refuses (a conflict, say), its exception passes through unchanged.
 *   <li>{@link Fault#LOSE_ANY_ANSWER} (mutations): as above, and a refusal is lost as well: it
 *       becomes an {@link UncertainWriteException} too.
 * </ul>
 *
 * <p>Faults are armed for the next n calls ({@link #failNext}), for calls on matching paths ({@link
 * #failNextMatching}), with a probability from a seeded {@link Random} ({@link #failRandomly}), or
 * by any {@link FaultPlan} ({@link #plan}, asked after the armed rules). A {@link #beforeLanding
 * hook} runs just before a call reaches the store, to pause or to revoke a lease at that exact
 * moment. For {@link Operation#WRITE} the decision is taken when the stream opens and applied when
 * it closes (the moment of landing); a failed or hooked stream buffers its bytes and only opens the
 * store's stream on close.
 *
 * <p>Counters: {@link #calls(Operation)}, {@link #injected(Operation, Fault)}, {@link #injected()},
 * {@link #failedBefore()}, {@link #answersLost()}. Thread-safe.
 */
public class FaultInjectingStore implements FileIO {

  /** Code run just before a call reaches the store; it may block or throw. */
  @FunctionalInterface
  public interface Hook {
    void run(Operation operation, Path path) throws IOException;
  }

  private final FileIO delegate;
  private final Object lock = new Object();
  private final List<Rule> rules = new ArrayList<>(); // guarded by lock
  private final List<FaultPlan> plans = new ArrayList<>(); // guarded by lock
  private final Map<Operation, Hook> hooks = new EnumMap<>(Operation.class); // guarded by lock
  private final Map<Operation, AtomicLong> calls = new EnumMap<>(Operation.class);
  private final Map<Operation, Map<Fault, AtomicLong>> injected = new EnumMap<>(Operation.class);

  /** Use {@link #wrap}, which keeps the store's capabilities. */
  protected FaultInjectingStore(FileIO delegate) {
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
  public static FaultInjectingStore wrap(FileIO delegate) {
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
    return new FaultInjectingStore(delegate);
  }

  /** Wraps {@code delegate} with {@code plan} deciding every call's fault. */
  public static FaultInjectingStore wrap(FileIO delegate, FaultPlan plan) {
    return wrap(delegate).plan(plan);
  }

  /** The wrapped store. */
  public FileIO delegate() {
    return delegate;
  }

  /** Arms {@code fault} for the next {@code times} calls of {@code operation}. */
  public FaultInjectingStore failNext(Operation operation, Fault fault, int times) {
    return failNextMatching(operation, path -> true, fault, times);
  }

  /** Arms {@code fault} for the next call of {@code operation}. */
  public FaultInjectingStore failNext(Operation operation, Fault fault) {
    return failNext(operation, fault, 1);
  }

  /**
   * Arms {@code fault} for the next {@code times} calls of {@code operation} on a matching path.
   */
  public FaultInjectingStore failNextMatching(
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
  public FaultInjectingStore failRandomly(
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

  /** Asks {@code plan} for every call no armed rule takes (plans in the order added). */
  public FaultInjectingStore plan(FaultPlan plan) {
    Objects.requireNonNull(plan, "plan");
    synchronized (lock) {
      plans.add(plan);
    }
    return this;
  }

  /**
   * Runs {@code hook} before every call of {@code operation} reaches the store: for a mutation just
   * before it lands, for a read just before it is served ({@code null} clears). A hook that throws
   * stops the call there.
   */
  public FaultInjectingStore beforeLanding(Operation operation, Hook hook) {
    synchronized (lock) {
      if (hook == null) {
        hooks.remove(operation);
      } else {
        hooks.put(operation, hook);
      }
    }
    return this;
  }

  /** Disarms every fault, plan and hook; counters keep their values. */
  public void clearFaults() {
    synchronized (lock) {
      rules.clear();
      plans.clear();
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
    return failedBefore() + answersLost();
  }

  /** How many calls failed before reaching the store. */
  public long failedBefore() {
    long sum = 0;
    for (Operation operation : Operation.values()) {
      sum += injected(operation, Fault.FAIL_BEFORE_LANDING);
    }
    return sum;
  }

  /** How many calls reached the store and lost their answer. */
  public long answersLost() {
    long sum = 0;
    for (Operation operation : Operation.values()) {
      sum +=
          injected(operation, Fault.LOSE_ANSWER_AFTER_LANDING)
              + injected(operation, Fault.LOSE_ANY_ANSWER);
    }
    return sum;
  }

  /** The counters in words, for assertion messages. */
  public String injectedSummary() {
    return failedBefore()
        + " calls failed before reaching the store, "
        + answersLost()
        + " answers lost";
  }

  private static void check(Operation operation, Fault fault) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fault, "fault");
    if (fault.losesAnswer() && !operation.isMutation()) {
      throw new IllegalArgumentException(
          operation
              + " changes nothing, so it cannot land and lose"
              + " its answer; use FAIL_BEFORE_LANDING");
    }
  }

  /**
   * Counts the call and consumes the first matching armed rule, else asks the plans. A lost answer
   * on a call that changes nothing fails it before it reaches the store.
   */
  private Fault decide(Operation operation, Path path) {
    calls.get(operation).incrementAndGet();
    Fault fault = null;
    List<FaultPlan> planned;
    synchronized (lock) {
      for (int i = 0; i < rules.size() && fault == null; i++) {
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
        fault = rule.fault;
      }
      planned = fault == null ? List.copyOf(plans) : List.of();
    }
    for (int i = 0; i < planned.size() && fault == null; i++) {
      fault = planned.get(i).decide(operation, path);
    }
    if (fault != null && fault.losesAnswer() && !operation.isMutation()) {
      return Fault.FAIL_BEFORE_LANDING;
    }
    return fault;
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

  private UncertainWriteException lostAnswer(Operation operation, Path path, Fault fault) {
    injected.get(operation).get(fault).incrementAndGet();
    return new UncertainWriteException(
        path, "injected: " + operation + " landed, answer lost", null);
  }

  /**
   * What the caller sees of the store's refusal {@code e}: lost under {@link
   * Fault#LOSE_ANY_ANSWER}.
   */
  private IOException refused(Operation operation, Path path, Fault fault, IOException e) {
    if (fault != Fault.LOSE_ANY_ANSWER || e instanceof UncertainWriteException) {
      return e;
    }
    injected.get(operation).get(Fault.LOSE_ANY_ANSWER).incrementAndGet();
    return new UncertainWriteException(
        path, "injected: " + operation + " reached the store, its answer (" + e + ") was lost", e);
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws IOException;
  }

  /** Runs {@code call} under {@code fault} once the call may reach the store. */
  private <T> T land(Operation operation, Path path, Fault fault, Call<T> call) throws IOException {
    T result;
    try {
      result = call.run();
    } catch (IOException e) {
      throw refused(operation, path, fault, e);
    }
    if (fault != null) {
      throw lostAnswer(operation, path, fault);
    }
    return result;
  }

  /** Applies the armed fault and hook around one call. */
  private <T> T call(Operation operation, Path path, Call<T> call) throws IOException {
    Fault fault = decide(operation, path);
    if (fault == Fault.FAIL_BEFORE_LANDING) {
      throw injectedFailure(operation, path);
    }
    Hook hook = hook(operation);
    if (hook != null) {
      hook.run(operation, path);
    }
    return land(operation, path, fault, call);
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    return call(Operation.READ, path, () -> delegate.newInputStream(path));
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    Fault fault = decide(Operation.WRITE, path);
    Hook hook = hook(Operation.WRITE);
    if (fault == null && hook == null) {
      return delegate.newOutputStream(path, overwrite);
    }
    if (fault != null && fault.losesAnswer() && hook == null) {
      try {
        return new LostAnswerStream(delegate.newOutputStream(path, overwrite), path, fault);
      } catch (IOException e) {
        throw refused(Operation.WRITE, path, fault, e);
      }
    }
    if (!overwrite && delegate.exists(path)) {
      throw new FileAlreadyExistsException(
          path.toString(), null, "the file exists and overwrite=false");
    }
    return new DeferredStream(path, overwrite, fault, hook);
  }

  /** Passes bytes through; the store's answer at close is lost. */
  private final class LostAnswerStream extends OutputStream {
    private final OutputStream out;
    private final Path path;
    private final Fault fault;
    private boolean closed;

    LostAnswerStream(OutputStream out, Path path, Fault fault) {
      this.out = out;
      this.path = path;
      this.fault = fault;
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
      land(
          Operation.WRITE,
          path,
          fault,
          () -> {
            out.close();
            return null;
          });
    }
  }

  /** Buffers bytes; on its first close applies the fault and hook, then writes to the store. */
  private final class DeferredStream extends ByteArrayOutputStream {
    private final Path path;
    private final boolean overwrite;
    private final Fault fault;
    private final Hook hook;
    private boolean closed;

    DeferredStream(Path path, boolean overwrite, Fault fault, Hook hook) {
      this.path = path;
      this.overwrite = overwrite;
      this.fault = fault;
      this.hook = hook;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      if (fault == Fault.FAIL_BEFORE_LANDING) {
        throw injectedFailure(Operation.WRITE, path);
      }
      if (hook != null) {
        hook.run(Operation.WRITE, path);
      }
      land(
          Operation.WRITE,
          path,
          fault,
          () -> {
            try (OutputStream out = delegate.newOutputStream(path, overwrite)) {
              writeTo(out);
            }
            return null;
          });
    }
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    return call(Operation.STATUS, path, () -> delegate.getStatus(path));
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return call(Operation.EXISTS, path, () -> delegate.exists(path));
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    return call(Operation.LIST, directory, () -> delegate.list(directory));
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    return call(Operation.DELETE, path, () -> delegate.delete(path, recursive));
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    return call(Operation.MKDIRS, path, () -> delegate.mkdirs(path));
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  /** Shared by the subclasses that keep {@link SupportsAtomicCreate}. */
  protected void createAtomicallyThrough(Path path, byte[] content) throws IOException {
    call(
        Operation.CREATE,
        path,
        () -> {
          ((SupportsAtomicCreate) delegate).createAtomically(path, content);
          return null;
        });
  }

  /** Shared by the subclasses that keep {@link SupportsAtomicRename}. */
  protected void renameAtomicallyThrough(Path source, Path target) throws IOException {
    call(
        Operation.RENAME,
        target,
        () -> {
          ((SupportsAtomicRename) delegate).renameAtomically(source, target);
          return null;
        });
  }

  @Override
  public String toString() {
    return "fault-injecting(" + delegate + ")";
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

  private static final class WithCreate extends FaultInjectingStore
      implements SupportsAtomicCreate {
    WithCreate(FileIO delegate) {
      super(delegate);
    }

    @Override
    public void createAtomically(Path path, byte[] content) throws IOException {
      createAtomicallyThrough(path, content);
    }
  }

  private static final class WithRename extends FaultInjectingStore
      implements SupportsAtomicRename {
    WithRename(FileIO delegate) {
      super(delegate);
    }

    @Override
    public void renameAtomically(Path source, Path target) throws IOException {
      renameAtomicallyThrough(source, target);
    }
  }

  private static final class WithCreateAndRename extends FaultInjectingStore
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
