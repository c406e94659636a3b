/**
 * English function words that carry no topic: articles, pronouns, auxiliaries, prepositions, conjunctions,
 * common adverbs and contractions, plus the fillers of spoken transcripts ("um", "uh", "okay"). Lower case.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `
a about above across after afterwards again against all almost alone along already also although always am among
amongst an and another any anybody anyhow anyone anything anyway anywhere are aren't around as at be became because
become becomes been before beforehand behind being below beside besides between beyond both but by can can't cannot
could couldn't did didn't do does doesn't doing don't done down during each either else elsewhere enough even ever
every everybody everyone everything everywhere few for from further get gets getting go goes going gone got had
hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's
however i i'd i'll i'm i've if in indeed into is isn't it it's its itself just let's like may maybe me might mine
more moreover most mostly much must mustn't my myself namely neither never nevertheless next no nobody none nor not
nothing now nowhere of off often on once one only onto or other others otherwise ought our ours ourselves out over
own per perhaps please quite rather really same shall shan't she she'd she'll she's should shouldn't since so some
somebody someone something sometimes somewhere still such than that that's the their theirs them themselves then
thence there there's thereafter thereby therefore these they they'd they'll they're they've this those though
through throughout thus to together too toward towards under unless until up upon us very via was wasn't we we'd
we'll we're we've well were weren't what what's whatever when when's whenever where where's whereas wherever
whether which while who who's whoever whole whom whose why why's will with within without won't would wouldn't yet
you you'd you'll you're you've your yours yourself yourselves
um umm uh uhm er erm hmm mm ah oh okay ok yeah yes right so
`
    .split(/\s+/)
    .filter(Boolean),
);

export function isStopWord(word: string, stopWords: ReadonlySet<string> = ENGLISH_STOP_WORDS): boolean {
  return stopWords.has(word.toLowerCase());
}
