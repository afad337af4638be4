/* The strategy registry, one line per strategy, in the order the CLI, the
 * hint's error messages and the tests list them. Adding a strategy is a
 * file under strategies/ defining `const struct tacio_strategy
 * strategy_NAME` plus its line here (tests/cli/toy_strategy.sh does it). */
STRATEGY(romio)
STRATEGY(lustre)
STRATEGY(latp)
STRATEGY(tatp)
STRATEGY(mccio)
STRATEGY(tsujita)
STRATEGY(bottleneck)
STRATEGY(cuts)
STRATEGY(auto)
