package dev.agentswarm.environments.eval;

/**
 * The two per-task success estimators of τ²-bench, from n samples of which c passed: pass@k, the
 * chance that at least one of k samples passes (1 − C(n−c, k)/C(n, k), the unbiased estimator), and
 * pass^k, the chance that all k pass (C(c, k)/C(n, k)): reliability, which agents need more.
 */
public final class PassAtK {

    private PassAtK() {}

    public static double passAt(int n, int c, int k) {
        check(n, c, k);
        if (n - c < k) return 1.0;
        return 1.0 - ratio(n - c, n, k);
    }

    public static double passHat(int n, int c, int k) {
        check(n, c, k);
        if (c < k) return 0.0;
        return ratio(c, n, k);
    }

    /** C(a, k) / C(b, k) for a ≤ b, as a product so it never overflows. */
    private static double ratio(int a, int b, int k) {
        double r = 1.0;
        for (int i = 0; i < k; i++) r *= (double) (a - i) / (b - i);
        return r;
    }

    private static void check(int n, int c, int k) {
        if (n < 1 || c < 0 || c > n || k < 1 || k > n) {
            throw new IllegalArgumentException("need 1 <= k <= n and 0 <= c <= n, got n=" + n + " c=" + c + " k=" + k);
        }
    }
}
