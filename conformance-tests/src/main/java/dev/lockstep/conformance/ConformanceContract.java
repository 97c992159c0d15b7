package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.fail;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.lock.LockService;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The base of every contract class: the {@link #target()} hook, a fresh sub-path of the target URI
 * per check, the clients a check opens (closed after it), and the declaration rules:
 *
 * <ol>
 *   <li>Undeclared capability or unconfigured target: the check fails, naming the missing key.
 *   <li>Declared absent: the check is skipped with the reason (a separate declaration check asserts
 *       that using the capability fails cleanly).
 *   <li>Declared present: the check runs and must pass.
 * </ol>
 */
@ExtendWith(ConformanceContract.Context.class)
public abstract class ConformanceContract {

  private ConformanceTarget runTarget;
  private ConformanceSuite suite;
  private Latencies latencies = new Latencies();
  private ConformanceTarget target;
  private ConformanceSettings settings;
  private String checkName;
  private Path checkDirectory;
  private FileIO cleanupStore;
  private final Deque<Closeable> opened = new ArrayDeque<>();

  /**
   * What is under test. Called once per check; may build a fresh target each time. By default: the
   * target of the {@link ConformanceRunner} run this check belongs to, else the target of the
   * enclosing {@link ConformanceSuite}, else {@code null} (which fails the check as unconfigured).
   * A vendor either subclasses {@link ConformanceSuite} or overrides this in a contract subclass.
   */
  protected ConformanceTarget target() {
    if (runTarget != null) {
      return runTarget;
    }
    return suite == null ? null : suite.target();
  }

  /**
   * Links each check to what JUnit knows about it: the run of the {@link ConformanceRunner} (by the
   * run id in the configuration parameters) and the enclosing {@link ConformanceSuite} instance.
   * Runs before every {@code @BeforeEach}.
   */
  static final class Context implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
      ConformanceContract contract = (ConformanceContract) context.getRequiredTestInstance();
      context
          .getConfigurationParameter(ConformanceRunner.RUN_PARAMETER)
          .flatMap(ConformanceRunner::run)
          .ifPresent(
              run -> {
                contract.runTarget = run.target();
                contract.latencies = run.latencies();
              });
      for (Object enclosing : context.getRequiredTestInstances().getEnclosingInstances()) {
        if (enclosing instanceof ConformanceSuite) {
          contract.suite = (ConformanceSuite) enclosing;
        }
      }
    }
  }

  @BeforeEach
  final void prepareCheck(TestInfo info) {
    ConformanceTarget t;
    try {
      t = target();
    } catch (RuntimeException e) {
      throw new AssertionError("The conformance target could not be built: " + e.getMessage(), e);
    }
    if (t == null) {
      fail(
          "Unconfigured suite: target() returned null. Return a ConformanceTarget built with"
              + " ConformanceTarget.builder() or ConformanceTarget.fromProperties(file).");
    }
    this.target = t;
    this.settings = t.settings();
    this.checkName =
        getClass().getSimpleName()
            + "."
            + info.getTestMethod().map(m -> m.getName()).orElse("check");
  }

  @AfterEach
  final void closeCheck() throws IOException {
    IOException failure = null;
    if (checkDirectory != null && cleanupStore != null && !settings.keepFiles()) {
      try {
        cleanupStore.delete(checkDirectory, true);
      } catch (IOException e) {
        failure = e;
      }
    }
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** The target of the current check. */
  protected final ConformanceTarget currentTarget() {
    return target;
  }

  /** The kit's settings of the current check. */
  protected final ConformanceSettings settings() {
    return settings;
  }

  /**
   * Fails when {@code capability} is undeclared; skips (with the reason) when it is declared
   * absent.
   */
  protected final void requirePresent(Capability capability) {
    if (!declaration(capability)) {
      if (capability == Capability.STORE_BASICS) {
        Assumptions.abort(
            "store-basics is declared absent (capabilities.store-basics=false): there is no store"
                + " under test, so this check does not apply. A lock vendor points 'uri' at a"
                + " local directory and declares store-basics=true to run the commit checks.");
      }
      Assumptions.abort(
          capability
              + " is declared absent ("
              + capability.propertyKey()
              + "=false): this check does not apply; the declaration check asserts that using it"
              + " fails cleanly.");
    }
  }

  /** The declaration of {@code capability}; fails, naming the key to set, when it is undeclared. */
  protected final boolean declaration(Capability capability) {
    return target
        .declared(capability)
        .orElseThrow(
            () ->
                new AssertionError(
                    "Capability '"
                        + capability
                        + "' is not declared. Declare it explicitly: "
                        + capability.propertyKey()
                        + "=true|false (or ConformanceTarget.builder().declare(Capability."
                        + capability.name()
                        + ", true|false)); an undeclared capability never counts as absent."));
  }

  /** A new client of the store under test, timed, closed after the check. */
  protected final FileIO openStore() throws IOException {
    FileIO store = target.openStore();
    opened.push(store);
    if (cleanupStore == null) {
      cleanupStore = store;
    }
    return MeasuredStore.wrap(store, latencies);
  }

  /** A new client of the lock service under test, timed, closed after the check. */
  protected final LockService openLock() throws IOException {
    LockService lock = target.openLock();
    opened.push(lock);
    return new MeasuredLockService(lock, latencies);
  }

  /** Registers something to close after the check (closed in reverse order of registration). */
  protected final <T extends Closeable> T closeAfterCheck(T closeable) {
    opened.push(closeable);
    return closeable;
  }

  /**
   * This check's own directory under the target URI: {@code <uri>/<Class>.<method>-<random>}. Opens
   * a store client for the cleanup if none is open yet.
   */
  protected final Path checkDirectory() throws IOException {
    if (checkDirectory == null) {
      if (cleanupStore == null) {
        openStore();
      }
      if (target.uri() == null) {
        throw new IllegalStateException(
            "The conformance target has no 'uri': the kit needs a fresh,"
                + " empty test directory or prefix to write into, even with a store factory.");
      }
      checkDirectory =
          Path.of(target.uri())
              .child(
                  checkName.replace('.', '-') + "-" + UUID.randomUUID().toString().substring(0, 8));
    }
    return checkDirectory;
  }

  /** The name of the current check, {@code Class.method}. */
  protected final String checkName() {
    return checkName;
  }

  /** The listing of {@code directory}, for failure messages. */
  protected static String listing(FileIO store, Path directory) {
    try {
      List<FileStatus> entries = store.list(directory);
      StringBuilder sb = new StringBuilder("listing of ").append(directory).append(':');
      entries.stream()
          .sorted((a, b) -> a.path().compareTo(b.path()))
          .forEach(
              s ->
                  sb.append("\n  ")
                      .append(s.path().name())
                      .append(s.directory() ? "/" : "  " + s.length() + " bytes"));
      return sb.toString();
    } catch (IOException e) {
      return "listing of " + directory + " failed: " + e;
    }
  }
}
