package dev.lockstep.fs.conditional;

import dev.lockstep.fs.Path;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.function.Predicate;

/**
 * The per-store primitive of {@link ConditionalPublisher}: how the store's client reports a failed
 * request. Everything else (the retry loop, the read-back, the deadline) is the publisher's.
 */
public interface StoreAnswers {

  /**
   * What a failed request means. Must recognise the store's "already exists" answer to a
   * conditional create ({@link Answer.Kind#ALREADY_EXISTS}) and tell whether a failure may have
   * landed.
   */
  Answer classify(RuntimeException failure);

  /**
   * The store's exception for a failure that is neither a conflict nor uncertain; names the store
   * address and the option to fix where it can.
   *
   * @param action the request, for example {@code PutObject}
   */
  IOException failure(RuntimeException failure, String action, Path path);

  /**
   * The store's words for its "already exists" answer, e.g. {@code S3 answered 412 to
   * If-None-Match: *}.
   */
  String alreadyExistsAnswer();

  /**
   * Whether {@code failure} or one of its causes says that no connection to the endpoint could be
   * made (refused, unknown host, no route, or a connect failure of the store's own HTTP client that
   * {@code clientConnectFailure} recognises): the request never left this machine.
   *
   * <p>The client's classes are named by the store's module, never here: each store bundle shades
   * and relocates its own HTTP client, and lock-api must stay byte-identical in every bundle (a
   * class name string here was relocated differently by each bundle's shading).
   */
  static boolean cannotConnect(Throwable failure, Predicate<Throwable> clientConnectFailure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException
          || cause instanceof UnknownHostException
          || cause instanceof NoRouteToHostException
          || clientConnectFailure.test(cause)) {
        return true;
      }
    }
    return false;
  }
}
