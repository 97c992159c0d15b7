package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import dev.lockstep.lock.Lease;
import dev.lockstep.lock.LockService;
import dev.lockstep.options.Options;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Checks, before any contract runs, that the target's store and lock service answer at all (issue
 * 25): a kit run against an unreachable store otherwise spends minutes in client retries and then
 * reports the store as broken. Within {@link #BUDGET}: open the store and ask whether its URI
 * exists; open the lock service and try the key {@value #PROBE_KEY} once without waiting.
 *
 * <p>Only "cannot reach" is decided here: no answer within the budget, or a failure caused by a
 * refused connection, an unknown host, no route or a connect timeout. Any other failure is left to
 * the contracts, which report it with the check it breaks.
 */
public final class Reachability {

  /** How long the store and the lock service together may take to answer. */
  public static final Duration BUDGET = Duration.ofSeconds(5);

  /** The lock key tried once (and released) to see that the lock service answers. */
  public static final String PROBE_KEY = "lockstep-conformance-reachability";

  private static final Pattern ENDPOINT_KEY =
      Pattern.compile(".*(endpoint|connect-string|\\.url|\\.uris|\\.host)$");
  private static final Pattern URL_SECRET =
      Pattern.compile("(?i)((?:password|pwd|secret)[^=&;/]*=)[^&;]*");
  private static final Pattern URL_USERINFO = Pattern.compile("//([^/@:]*):[^/@]*@");

  private Reachability() {}

  /** {@link #check(ConformanceTarget, Duration)} within {@link #BUDGET}. */
  public static void check(ConformanceTarget target) {
    check(target, BUDGET);
  }

  /**
   * Returns when the store and the lock service (those the target has) answered within {@code
   * budget}, or failed for a reason other than reachability.
   *
   * @throws UnreachableTargetException saying "cannot reach ..." with the endpoint options
   */
  public static void check(ConformanceTarget target, Duration budget) {
    String[] asking = {"the store"};
    CompletableFuture<Void> probe = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                if (target.hasStore()) {
                  asking[0] = "the store " + describeStore(target);
                  try (FileIO io = target.openStore()) {
                    if (target.uri() != null) {
                      io.exists(dev.lockstep.fs.Path.of(target.uri()));
                    }
                  }
                }
                if (target.hasLock()) {
                  asking[0] = "the lock service " + describeLock(target);
                  try (LockService service = target.openLock()) {
                    Optional<Lease> lease = service.acquire(PROBE_KEY, Duration.ZERO);
                    if (lease.isPresent()) {
                      lease.get().close();
                    }
                  }
                }
                probe.complete(null);
              } catch (Throwable e) {
                probe.completeExceptionally(e);
              }
            },
            "lockstep-conformance-reachability");
    thread.setDaemon(true); // a client that never answers must not keep the JVM alive
    thread.start();
    try {
      probe.get(budget.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      thread.interrupt();
      throw new UnreachableTargetException(
          "cannot reach "
              + asking[0]
              + ": no answer within "
              + budget.toSeconds()
              + " s. Check the endpoint options and that the server is running.");
    } catch (InterruptedException e) {
      thread.interrupt();
      Thread.currentThread().interrupt();
      throw new UnreachableTargetException(
          "interrupted while checking that " + asking[0] + " can be reached");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (isUnreachable(cause)) {
        throw new UnreachableTargetException(
            "cannot reach "
                + asking[0]
                + ": "
                + String.valueOf(cause.getMessage()).replace('\n', ' '),
            cause);
      }
      // Reached, and failed otherwise: the contracts report it with the check it breaks.
    }
  }

  /** Whether no connection could be made: refused, unknown host, no route, connect timeout. */
  static boolean isUnreachable(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ConnectException
          || c instanceof UnknownHostException
          || c instanceof NoRouteToHostException
          || c instanceof SocketTimeoutException
          || c.getClass().getSimpleName().equals("ConnectTimeoutException")
          || String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT).startsWith("cannot reach")) {
        return true;
      }
    }
    return false;
  }

  private static String describeStore(ConformanceTarget target) {
    String where = target.uri() != null ? target.uri() : "(from its factory)";
    String endpoints = endpoints(target.options(), false);
    return endpoints.isEmpty() ? where : where + " (" + endpoints + ")";
  }

  private static String describeLock(ConformanceTarget target) {
    String type =
        target.lockType() != null ? "lock.type=" + target.lockType() : "(from its factory)";
    String endpoints = endpoints(target.options(), true);
    return endpoints.isEmpty() ? type : type + " (" + endpoints + ")";
  }

  /** The endpoint options (store or lock ones), secrets in URLs masked. */
  private static String endpoints(Map<String, String> options, boolean lock) {
    StringJoiner joined = new StringJoiner(", ");
    options.forEach(
        (key, value) -> {
          String k = key.toLowerCase(Locale.ROOT);
          if (k.startsWith("lock.") == lock
              && ENDPOINT_KEY.matcher(k).matches()
              && !Options.isSecret(k)) {
            String masked = URL_SECRET.matcher(value).replaceAll("$1******");
            joined.add(key + "=" + URL_USERINFO.matcher(masked).replaceAll("//$1:******@"));
          }
        });
    return joined.toString();
  }

  /** The target cannot be reached: no contract ran. */
  public static final class UnreachableTargetException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreachableTargetException(String message) {
      super(message);
    }

    UnreachableTargetException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
