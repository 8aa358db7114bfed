// The oracle of epd-referee/tests/fastchess_stats.rs: fastchess's own
// statistics (its EloPentanomial and SPRT classes, compiled from the
// fastchess tarball in shared/peers) over pentanomial counts read from
// standard input, one vector a line: "LL LD DD WD WW" (DD standing for
// the pairs of one point, DD and WL); with the argument "wdl", its EloWDL
// over trinomial counts "L D W". For each line it prints, tab-
// separated: Elo, its +/-, nElo, its +/-, fastchess's LOS text, the draw
// ratio (percent), then the LLR of each SPRT below. Numbers print with
// 17 significant digits, so inf and nan print as such.
//
// Licensed under MIT OR Apache-2.0 (this file; fastchess is MIT).

#include <matchmaking/elo/elo_pentanomial.hpp>
#include <matchmaking/elo/elo_wdl.hpp>
#include <matchmaking/sprt/sprt.hpp>
#include <matchmaking/stats.hpp>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>

// The two flags the SPRT's logger reads (fastchess defines them in
// core/globals, with the rest of its process handling).
namespace fastchess::atomic {
std::atomic_bool stop                 = false;
std::atomic_bool abnormal_termination = false;
}  // namespace fastchess::atomic

int main(int argc, char** argv) {
    using fastchess::SPRT;
    const SPRT tests[] = {
        SPRT(0.05, 0.05, 0.0, 5.0, "normalized", true),
        SPRT(0.05, 0.05, 0.0, 5.0, "logistic", true),
        SPRT(0.05, 0.1, -3.0, 1.0, "normalized", true),
    };
    // "wdl": trinomial counts instead, "L D W" a line, through EloWDL and
    // the games' LLR (fastchess's -report penta=false); the same columns,
    // the draw ratio of games.
    if (argc > 1 && std::string(argv[1]) == "wdl") {
        int l, d, w;
        while (std::cin >> l >> d >> w) {
            fastchess::Stats s(w, l, d);
            fastchess::elo::EloWDL elo(s);
            std::printf("%.17g\t%.17g\t%.17g\t%.17g\t%s\t%.17g", elo.diff(), elo.error(), elo.nEloDiff(),
                        elo.nEloError(), elo.los().c_str(), s.drawRatio());
            for (const auto& t : tests) std::printf("\t%.17g", t.getLLR(s, false));
            std::printf("\n");
        }
        return 0;
    }
    int ll, ld, dd, wd, ww;
    while (std::cin >> ll >> ld >> dd >> wd >> ww) {
        fastchess::Stats s;
        s.penta_LL = ll;
        s.penta_LD = ld;
        s.penta_DD = dd;
        s.penta_WD = wd;
        s.penta_WW = ww;
        fastchess::elo::EloPentanomial elo(s);
        std::printf("%.17g\t%.17g\t%.17g\t%.17g\t%s\t%.17g", elo.diff(), elo.error(), elo.nEloDiff(),
                    elo.nEloError(), elo.los().c_str(), s.drawRatioPenta());
        for (const auto& t : tests) std::printf("\t%.17g", t.getLLR(s, true));
        std::printf("\n");
    }
    return 0;
}
