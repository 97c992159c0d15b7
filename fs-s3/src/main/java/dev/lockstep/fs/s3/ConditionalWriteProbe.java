package dev.lockstep.fs.s3;

import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Decides {@code s3.conditional-writes=auto} for an endpoint that is not AWS S3, once per endpoint
 * and bucket per JVM.
 *
 * <ol>
 *   <li>PutObject {@code <root>/.lockstep-probe-<uuid>} with {@code If-None-Match: *}. A 400 or 501
 *       (the store rejects the header): off.
 *   <li>The same PutObject again. 412: the store refuses to overwrite, on. 200: it ignored the
 *       header and overwrote, off (this is the store that would silently lose commits with {@code
 *       true}).
 *   <li>Delete the probe object (best effort).
 * </ol>
 *
 * <p>An unreachable endpoint fails loading as unreachable, naming {@code s3.endpoint}. Any other
 * answer (no permission, an error) fails loading with the fix: set {@code s3.conditional-writes} to
 * {@code true} or {@code false} explicitly. The probe shows that the store honours the header; it
 * cannot show that it does so atomically under a race (s3proxy before 4.0 checked and then wrote).
 * For such a store set {@code false}.
 */
final class ConditionalWriteProbe {

  private static final Logger LOG = LoggerFactory.getLogger(ConditionalWriteProbe.class);
  private static final Map<String, Boolean> RESULTS = new ConcurrentHashMap<>();

  private ConditionalWriteProbe() {}

  static boolean supported(S3Clients clients, S3Options options, S3Location root)
      throws IOException {
    String cacheKey = options.endpoint() + "|" + root.bucket();
    Boolean known = RESULTS.get(cacheKey);
    if (known != null) {
      return known;
    }
    boolean result =
        probe(
            clients,
            options,
            new S3Location(
                root.bucket(), root.childPrefix() + ".lockstep-probe-" + UUID.randomUUID()));
    RESULTS.put(cacheKey, result);
    LOG.info(
        "s3.conditional-writes=auto: {} at {} bucket {} (probed)",
        result
            ? "If-None-Match: * is honoured, atomic create on"
            : "If-None-Match: * is not honoured, atomic create off (commits need a lock)",
        options.endpoint(),
        root.bucket());
    return result;
  }

  private static boolean probe(S3Clients clients, S3Options options, S3Location probe)
      throws IOException {
    boolean unreachable = false;
    try {
      for (int attempt = 1; attempt <= 2; attempt++) {
        try {
          clients
              .retrying()
              .putObject(
                  b -> b.bucket(probe.bucket()).key(probe.key()).ifNoneMatch("*"),
                  RequestBody.fromString("lockstep conditional-write probe"));
          if (attempt == 2) {
            return false;
          }
        } catch (SdkException e) {
          if (attempt == 2 && S3Errors.isPreconditionFailed(e)) {
            return true;
          }
          int status = S3Errors.status(e);
          if (attempt == 1 && (status == 400 || status == 501)) {
            return false;
          }
          if (S3Errors.isUnreachable(e)) {
            unreachable =
                true; // nothing was written, and deleting would wait out the retries again
            throw new IOException(
                "Cannot reach the S3 endpoint "
                    + options.endpoint()
                    + " ("
                    + rootMessage(e)
                    + "). Check '"
                    + S3Options.ENDPOINT
                    + "' and that the store is"
                    + " running.",
                e);
          }
          throw new IOException(
              "Could not probe whether "
                  + options.endpoint()
                  + " honours"
                  + " If-None-Match: * ("
                  + S3Errors.translate("Writing", probe, e).getMessage()
                  + "). Set '"
                  + S3Options.CONDITIONAL_WRITES
                  + "' to true (the store honours it"
                  + " atomically) or false (commits then need lock.enabled=true).",
              e);
        }
      }
      return false;
    } finally {
      try {
        if (!unreachable) {
          clients.retrying().deleteObject(b -> b.bucket(probe.bucket()).key(probe.key()));
        }
      } catch (SdkException e) {
        LOG.debug("Could not delete the probe object {}: {}", probe, e.toString());
      }
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
