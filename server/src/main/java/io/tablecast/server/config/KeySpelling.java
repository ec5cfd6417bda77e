package io.tablecast.server.config;

import java.util.Collection;

/**
 * Which known configuration key an unknown one was meant to be: {@code sorce} is {@code source}.
 */
final class KeySpelling {

  private KeySpelling() {}

  /**
   * The key of {@code known} closest to {@code key} in edits (a letter added, left out, changed or
   * two swapped), when it is at most two edits away and no other is as close; else null.
   */
  static String closest(String key, Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    boolean tie = false;
    for (String k : known) {
      int d = distance(key, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
        tie = false;
      } else if (d == bestDistance) {
        tie = true;
      }
    }
    int allowed = Math.min(2, Math.max(1, key.length() / 3));
    return best != null && bestDistance <= allowed && !tie ? best : null;
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
