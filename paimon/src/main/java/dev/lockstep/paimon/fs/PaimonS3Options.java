package dev.lockstep.paimon.fs;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Maps the S3 options a Paimon user already writes for {@code paimon-s3} onto Lockstep's {@code
 * s3.*} keys (fs-s3's {@code S3Options}).
 *
 * <p>{@code paimon-s3} passes every {@code s3.X}, {@code s3a.X} and {@code fs.s3a.X} to Hadoop's
 * S3A as {@code fs.s3a.X}. Here each such key is reduced to its S3A name {@code X} and the S3A
 * names that have a Lockstep equivalent are translated ({@link #TRANSLATED}). Lockstep's own key,
 * when given, wins over a translated one. S3A's assumed-role settings ({@code assumed.role.arn},
 * ...) become Lockstep's {@code s3.assumed-role.*}. S3A settings Lockstep cannot honour the same
 * way (a custom credentials provider class, also for STS, server-side encryption with a customer
 * key) are refused with the way out, never silently dropped.
 */
final class PaimonS3Options {

  /** S3A name → Lockstep key. */
  static final Map<String, String> TRANSLATED =
      Map.ofEntries(
          Map.entry("access.key", "s3.access-key"),
          Map.entry("access-key", "s3.access-key"),
          Map.entry("secret.key", "s3.secret-key"),
          Map.entry("secret-key", "s3.secret-key"),
          Map.entry("session.token", "s3.session-token"),
          Map.entry("session-token", "s3.session-token"),
          Map.entry("endpoint", "s3.endpoint"),
          Map.entry("endpoint.region", "s3.region"),
          Map.entry("region", "s3.region"),
          Map.entry("path.style.access", "s3.path-style-access"),
          Map.entry("path-style-access", "s3.path-style-access"),
          Map.entry("connection.establish.timeout", "s3.connection-timeout"),
          Map.entry("connection.timeout", "s3.socket-timeout"),
          Map.entry("connection.request.timeout", "s3.api-call-attempt-timeout"),
          Map.entry("connection.maximum", "s3.max-connections"),
          Map.entry("attempts.maximum", "s3.retry.max-attempts"),
          Map.entry("retry.interval", "s3.retry.base-delay"),
          Map.entry("multipart.size", "s3.multipart.part-size"),
          Map.entry("multipart.threshold", "s3.multipart.threshold"),
          Map.entry("assumed.role.arn", "s3.assumed-role.arn"),
          Map.entry("assumed.role.session.name", "s3.assumed-role.session-name"),
          Map.entry("assumed.role.session.duration", "s3.assumed-role.session-duration"),
          Map.entry("assumed.role.policy", "s3.assumed-role.policy"),
          Map.entry("assumed.role.sts.endpoint", "s3.assumed-role.sts-endpoint"),
          Map.entry("assumed.role.sts.endpoint.region", "s3.assumed-role.sts-region"));

  /** S3A names whose meaning Lockstep's S3 client does not have. */
  private static final Map<String, String> REFUSED =
      Map.of(
          "aws.credentials.provider", "a custom credentials provider class",
          "assumed.role.credentials.provider", "a custom credentials provider class for STS",
          "server-side-encryption-algorithm", "server-side encryption settings",
          "encryption.algorithm", "server-side encryption settings");

  private static final String[] PREFIXES = {"fs.s3a.", "s3a.", "s3."};

  private PaimonS3Options() {}

  /**
   * The catalog options with the translated keys added and the S3A settings Lockstep does not read
   * removed ({@link ForeignStoreKeys}).
   *
   * @throws IllegalArgumentException for an S3A setting that Lockstep's S3 store cannot honour
   */
  static Map<String, String> toLockstep(Map<String, String> options) {
    Map<String, String> result = new HashMap<>(options);
    Map<String, String> translated = new HashMap<>();
    String ssl = null;
    for (Map.Entry<String, String> option : options.entrySet()) {
      String s3aName = s3aName(option.getKey());
      if (s3aName == null) {
        continue;
      }
      String refused = REFUSED.get(s3aName);
      if (refused != null) {
        throw new IllegalArgumentException(
            "Option '"
                + option.getKey()
                + "' asks for "
                + refused
                + ", which Lockstep's s3 FileIO does not support; remove it and give 's3.access-key' /"
                + " 's3.secret-key' (and 's3.session-token'; with 's3.assumed-role.arn' these ask STS),"
                + " or leave all three out to use the AWS default credential chain (environment,"
                + " profile, web identity, container or instance role).");
      }
      if (s3aName.equals("connection.ssl.enabled")) {
        ssl = option.getValue();
      }
      String lockstepKey = TRANSLATED.get(s3aName);
      if (lockstepKey != null && !lockstepKey.equals(option.getKey())) {
        translated.putIfAbsent(lockstepKey, option.getValue());
      }
    }
    translated.forEach(result::putIfAbsent);
    // S3A takes a bare host[:port] and adds https unless connection.ssl.enabled=false.
    boolean https = ssl == null || !ssl.trim().equalsIgnoreCase("false");
    for (String key : new String[] {"s3.endpoint", "s3.assumed-role.sts-endpoint"}) {
      String endpoint = result.get(key);
      if (endpoint != null && !endpoint.isBlank() && !endpoint.contains("://")) {
        result.put(key, (https ? "https://" : "http://") + endpoint.trim());
      }
    }
    return ForeignStoreKeys.withoutForeignKeys(dev.lockstep.fs.s3.S3Options.OPTIONS, result);
  }

  /** The S3A name of a Paimon S3 option, or {@code null} when the key is not one. */
  private static String s3aName(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    for (String prefix : PREFIXES) {
      if (lower.startsWith(prefix)) {
        return lower.substring(prefix.length());
      }
    }
    return null;
  }
}
