#!/usr/bin/env bash
# Puts the test corpora this repository may not redistribute into
# tests/fixtures/ (git-ignored; see tests/fixtures/README.md for why):
# AG news (non-commercial), SearchSnippets and NLPCC 2017 headlines (no
# licence). Each file is copied from SHARED_DATA (default ../shared/data, the
# team's data folder) when it is there, else downloaded from the public
# repository and commit it was taken from; every file is checked against its
# SHA-256, so the tests read exactly the bytes their figures were measured on.
#
#   scripts/fetch_fixtures.sh            # from the checkout's root
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED_DATA=${SHARED_DATA:-../shared/data}

AG=https://raw.githubusercontent.com/mhjabreel/CharCnn_Keras/555590db4219b1243abb1918effd6a7425a2d75f/data/ag_news_csv
STC2=https://raw.githubusercontent.com/jacoxu/STC2/34a28c5a8cf2d6e1db300d32f271f6522db3bde5/dataset

# path under tests/fixtures | sha256 | download URL ("-": derived, only a copy will do)
FILES="
corpus/ag_news_en/test.csv|521465c2428ed7f02f8d6db6ffdd4b5447c1c701962353eb2c40d548c3c85699|$AG/test.csv
corpus/ag_news_en/classes.txt|612dbfa932f07a6ed837295a7d5746ce7412e7bb4bc32ba919fdb3cda3a1b9b5|$AG/classes.txt
corpus/ag_news_en/readme.txt|779c2e6bbf93dd810d9c7b318006daef7a4bfc34062002461d251dc10fb9f58c|$AG/readme.txt
corpus/searchsnippets_en/SearchSnippets.txt|611608df8e343df204acf5826e70fd3e590482d352b2c81bf2a6d37621677603|$STC2/SearchSnippets.txt
corpus/searchsnippets_en/SearchSnippets_gnd.txt|03c0c750b699c29fb2c13cfbf62fa5e96a05694da9d5a9bd7fc4367cdd9735c6|$STC2/SearchSnippets_gnd.txt
corpus/nlpcc2017_headlines_zh/headlines.tsv|8cddae9d16385237bb281c7f67dd11b451de2c2920fe144d920e7c80ab662a2d|-
"

failed=0
for entry in $FILES; do
    IFS='|' read -r path sum url <<<"$entry"
    dest=tests/fixtures/$path
    if [ -f "$dest" ] && echo "$sum  $dest" | sha256sum --check --status; then
        echo "ok       $dest"
        continue
    fi
    mkdir -p "$(dirname "$dest")"
    if [ -f "$SHARED_DATA/$path" ]; then
        cp "$SHARED_DATA/$path" "$dest.part"
        from=$SHARED_DATA/$path
    elif [ "$url" != - ]; then
        curl -fsSL "$url" -o "$dest.part" || { echo "FAILED   $dest: download of $url" >&2; failed=1; continue; }
        from=$url
    else
        echo "MISSING  $dest: derived file, only in $SHARED_DATA/$path" >&2
        failed=1
        continue
    fi
    if echo "$sum  $dest.part" | sha256sum --check --status; then
        mv "$dest.part" "$dest"
        echo "fetched  $dest (from $from)"
    else
        rm -f "$dest.part"
        echo "FAILED   $dest: $from does not have SHA-256 $sum" >&2
        failed=1
    fi
done
exit $failed
