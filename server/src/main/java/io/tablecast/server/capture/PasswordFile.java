package io.tablecast.server.capture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * {@code source.password_file}: the database password read from a file each time a connection is
 * made, so that a password rotated in the file (a Kubernetes secret, a file a Vault agent renders)
 * is used from the next connection on, without a restart. The file holds the password alone; one
 * line end after it (as {@code echo} and most secret stores write) is not part of it.
 */
final class PasswordFile {
  private static final Pattern USER_IN_URL = Pattern.compile("[?&;]user=[^&;]");

  private PasswordFile() {}

  /**
   * Refuses {@code file} (named by its key) unless it is readable and the password is given no
   * other way, and the user is known: the pool connects with the user and the file's password.
   */
  static void check(Path file, String password, String user, String jdbcUrl) {
    if (!Files.isReadable(file) || Files.isDirectory(file)) {
      throw new IllegalArgumentException(
          "source.password_file must be a readable file, was '" + file + "'");
    }
    if (password != null) {
      throw new IllegalArgumentException(
          "source.password and source.password_file are two ways to give the password; set one");
    }
    if (jdbcUrl.contains("password=")) {
      throw new IllegalArgumentException(
          "source.password_file is set and source.jdbc_url has a password too; take it out of the"
              + " URL");
    }
    if (user == null && !USER_IN_URL.matcher(jdbcUrl).find()) {
      throw new IllegalArgumentException(
          "source.password_file needs the user it is the password of: set source.user, or user="
              + " in source.jdbc_url");
    }
  }

  /**
   * The password in {@code file} now, without one line end after it.
   *
   * @throws UncheckedIOException naming the file when it cannot be read (a connection made then
   *     fails with it)
   */
  static String read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read source.password_file " + file + ": " + e.getMessage(), e);
    }
    if (text.endsWith("\r\n")) {
      return text.substring(0, text.length() - 2);
    }
    return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
  }
}
