package dev.memchan.tools.bench;

/** A waiter's back-off: spin a while, then yield (on two cores a waiter that never yields can starve its peer). */
final class Idle {
    private int spins;

    void idle() {
        if (++spins < 1000) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    void reset() {
        spins = 0;
    }
}
