package io.floe.spark.util;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The one place that decides which option values are secrets. Every {@code toString}, plan
 * description, log line and message that shows options goes through here.
 *
 * <p>A value is hidden whole when its key names a secret (access and secret keys, session tokens,
 * OAuth2 credentials and tokens, passwords, ...). Values of other keys are shown, except for a
 * password written into a URI ({@code scheme://user:password@host}, {@code ?password=...}), which
 * is hidden inside the value.
 */
public final class Redaction {
  /** What replaces a secret value. */
  public static final String REDACTED = "*********(redacted)";

  private static final Pattern SECRET_KEY =
      Pattern.compile(
          "(?i).*(secret|password|passwd|token|credential|session|access-key|accesskey|private|auth|"
              + "signature|api-key|apikey).*");
  private static final Pattern ADDRESS_KEY = Pattern.compile(".*(uri|url|endpoint)");
  private static final Pattern URI_USER_PASSWORD = Pattern.compile("(//[^/:@?#\\s]+:)[^@/\\s]+@");
  private static final Pattern URI_PASSWORD_PARAMETER =
      Pattern.compile("(?i)([?&;](?:password|passwd|pwd|secret|token)=)[^&;\\s]*");

  private Redaction() {}

  /**
   * Whether the value of this option key must never be shown. Addresses ({@code ...uri}, {@code
   * ...url}, {@code ...endpoint}, such as {@code oauth2-server-uri}) are not secrets by name; a
   * password inside one is hidden by {@link #redactUriPasswords}.
   */
  public static boolean isSecret(String key) {
    if (key == null) {
      return false;
    }
    String lower = key.toLowerCase(Locale.ROOT);
    return SECRET_KEY.matcher(lower).matches() && !ADDRESS_KEY.matcher(lower).matches();
  }

  /** A sorted copy of the options with every secret value replaced. */
  public static Map<String, String> redact(Map<String, String> options) {
    Map<String, String> shown = new TreeMap<>();
    if (options != null) {
      options.forEach((key, value) -> shown.put(key, redact(key, value)));
    }
    return shown;
  }

  /** The value of one option as it may be shown. */
  public static String redact(String key, String value) {
    if (value == null) {
      return null;
    }
    return isSecret(key) ? REDACTED : redactUriPasswords(value);
  }

  /** The text with passwords written into URIs replaced; the rest is kept. */
  public static String redactUriPasswords(String text) {
    if (text == null) {
      return null;
    }
    String withoutUserPassword = URI_USER_PASSWORD.matcher(text).replaceAll("$1" + quoted() + "@");
    return URI_PASSWORD_PARAMETER.matcher(withoutUserPassword).replaceAll("$1" + quoted());
  }

  private static String quoted() {
    return java.util.regex.Matcher.quoteReplacement(REDACTED);
  }
}
