# metasift — English. Every key here must exist in every other catalog
# (tests/i18n.rs). Arguments: $n (a number), $q (the query), $s, $engines.

# The language's own name, in the interface-language menu.
locale-name = English

skip-to-content = Skip to content
footer-tagline = metasift — one query, many engines, no duplicates.
nav-home = Home
nav-stats = Engine health
nav-lab = Lab
nav-preferences = Preferences
nav-add-to-browser = Add to browser
search-label = Search
search-placeholder = Search the web
search-button = Search
home-tagline = Searches { $n } { $n ->
    [one] engine
   *[other] engines
} at once and folds the duplicates together.
shortcuts-title = Shortcuts
shortcuts-help = Start a query with a shortcut to ask one engine alone, e.g.
operators-title = Search operators
operators-help = Engines that understand an operator are sent it; every result shown keeps them all (the ones that break one are left out, and the page says how many).
operator-site = only results from this site and its subdomains
operator-not-site = no results from this site
operator-exclude = no result that mentions this word
operator-phrase = these words together, in this order (in Chinese no spaces are needed; “ ”, 「 」 and 『 』 quote too)
operator-intitle = the word is in the title
operator-filetype = links to files of this type (also ext:pdf)
bangs-title = { $n ->
    [one] 1 external bang
   *[other] { $n } external bangs
}
bangs-help = A word !!name sends the search to that site's own search (!!name alone: its home page), e.g.

rss-title = These results as RSS
categories-label = Categories
details-label = Search details
asking-label = Engines being asked
asking-head = Asking { $n } { $n ->
    [one] engine
   *[other] engines
}…
asking-wait = Results appear when every engine has answered, or after { $s } s.
results-count = { $n ->
    [one] 1 result
   *[other] { $n } results
}
duplicates-folded = { $n ->
    [one] 1 duplicate folded
   *[other] { $n } duplicates folded
}
hostnames-removed = { $n ->
    [one] 1 result removed by hostname rules
   *[other] { $n } results removed by hostname rules
}
elapsed-ms = { $n } ms
cached = cached
answer-age-s = answers { $n } s old
answer-age-min = answers { $n } min old
answer-age-h = answers { $n } h old
page-n = page { $n }
estimate-line = about { $n } found by the engines
only-from = Only from: { $engines }
engines-failed = { $n ->
    [one] 1 engine failed
   *[other] { $n } engines failed
}
results-incomplete = — the results may be incomplete.
operators-dropped = { $n ->
    [one] 1 engine result was left out for breaking the query's operators.
   *[other] { $n } engine results were left out for breaking the query's operators.
}

compare-title = Compared with the configured settings
compare-configured = Configured:
compare-this-page = This page:
compare-records = Over all { $n } engine records of this search:
compare-results = results
compare-formed = formed
compare-joined = joined
compare-split = split
compare-left = left
compare-none = No group formed or split: the same records are folded together.
compare-groups-formed = Groups formed
compare-groups-split = Groups split
compare-headline-joined = { $n ->
    [one] 1 result
   *[other] { $n } results
} joined the group of “{ $title }”
compare-headline-left = { $n ->
    [one] 1 result
   *[other] { $n } results
} left the group of “{ $title }”
compare-headline-formed = { $n } records became one group, from { $from }
compare-from-alone = { $n ->
    [one] 1 result
   *[other] { $n } results
} of their own
compare-from-groups = records of { $n ->
    [one] 1 group
   *[other] { $n } groups
}
compare-from-and = { $a } and { $b }
compare-headline-split = a group of { $n } records came apart into { $parts } places
compare-note-was-alone = was a result of its own
compare-note-was-in = was in a group of { $n }
compare-note-now-alone = now a result of its own
compare-note-now-in = now in a group of { $n }
compare-kept = kept
compare-moved = Results moved by the fusion method
compare-moved-engines = { $n ->
    [one] found by 1 engine
   *[other] found by { $n } engines
}

empty-failed-title = No engine answered “{ $q }”
empty-failed-text = Every engine asked failed, so nothing is known about this query yet:
empty-failed-retry = Try again in a moment. How each engine has fared lately:
failures-every-engine = { $n ->
    [one] The engine
   *[other] All { $n } engines
}
empty-failed-offline = No engine could be reached: is this machine offline? The demo answers from pages of its own, with no network:
engines-failed-above = Every engine failed: what they said is in the page.
empty-notrecorded-title = Nothing recorded for “{ $q }”
empty-notrecorded-text = This server answers from recorded engine pages (offline replay), and none holds this query. Try one the recording has.
empty-notrecorded-queries = This server answers from recordings (offline), which hold only these queries:
empty-past-title = No more results for “{ $q }”
empty-past-text = The engines have nothing on page { $n }.
back-to-page = Back to page { $n }
empty-noengines-title = No engine to ask
empty-noengines-text = No enabled engine serves what this search asked for. Search again without the shortcut or category.
empty-refused-title = No results for “{ $q }” yet
empty-refused-text = The search did not run. Try again in a moment.
empty-none-title = No results for “{ $q }”
empty-none-text = The engines answered, with nothing. Try fewer or different words.
empty-none-shortcut = Or search every engine without the shortcut.

results-heading = Results for “{ $q }”
found-by = Found by
score-title = fused score: Σ of engine votes under the fusion method (fusion=)
score = score { $s }
similar-results = { $n ->
    [one] 1 similar result
   *[other] { $n } similar results
}
dup-why-url = same address
dup-why-canonical = same { $rule } identifier
dup-why-title = same title, similar snippet
dup-why-snippet = similar snippet
similarity = similarity
no-shared-codes = no shared feature codes
shared-codes = shared codes:
shared-text = shared text ({ $n } codes):
pages-label = Pages
prev = ← Previous
next = Next →
related-searches = Related searches
dedup-title = Duplicate folding
method = Method
fusion = Fusion
os1-hint = (same title)
os2-hint = (different title)
explain-merges = Explain merges
recluster = Re-cluster
engines-title = Engines
not-recorded-line = No recording of this query for { $n } { $n ->
    [one] engine:
   *[other] engines:
}
formats-title = Other formats

status-ok = ok
status-slow = slow
failure-timeout = timed out
failure-network = unreachable
failure-too_many_requests = rate-limited
failure-http_4xx = refused
failure-http_5xx = server error
failure-blocked = blocked
failure-parse = unreadable answer
failure-too_large = answer too large
failure-suspended = suspended
failure-not_recorded = not recorded
failure-no_safesearch = left out: cannot filter adult content
failure-no_time_range = left out: cannot filter by date
left-out-no_safesearch = Strict safe search left out the engines that cannot filter adult content: { $engines }
left-out-no_time_range = The time range left out the engines that can neither be asked for one nor give dates: { $engines }
time-range-dropped = { $n ->
    [one] 1 result was left out: dated before the time range, or undated, from an engine that cannot be asked for one.
   *[other] { $n } results were left out: dated before the time range, or undated, from engines that cannot be asked for one.
}
failure-budget = resting: outbound budget

language-label = Language
time-label = Time
safe-label = Safe search
lang-any = Any language
lang-en = English
lang-zh = Chinese
time-any = Any time
time-day = Past day
time-week = Past week
time-month = Past month
time-year = Past year
safe-default = Safe search: default
safe-off = Safe search: off
safe-moderate = Safe search: moderate
safe-strict = Safe search: strict

category-general = General
category-news = News
category-it = IT
category-science = Science
category-images = Images
category-videos = Videos
category-map = Map
category-music = Music
category-files = Files
category-social_media = Social media
category-autocomplete = Suggestions

# Result templates (images, videos, papers, packages, places), infoboxes and answers.
card-resolution = Resolution
card-source = Source
card-author = By
card-full-image = Full image
card-length = Length
card-authors = Authors
card-et-al = { $authors } et al.
card-venue = Published in
card-venue-volume = { $venue }, vol. { $volume }
card-year = Year
card-publisher = Publisher
card-package = Package
card-version = Version
card-license = Licence
card-maintainer = Maintainer
card-popularity = Popularity
card-tags = Keywords
card-homepage = Home page
card-source-code = Source code
card-address = Address
card-coordinates = Coordinates
card-osm = Open in OpenStreetMap
answers-label = Answers
infobox-from = From { $engines }

# Engines by their engines.toml name (a name with none here is shown title-cased).
engine-wikipedia = Wikipedia
engine-wikipedia_zh = Chinese Wikipedia
engine-wikipedia_suggest = Wikipedia suggestions
engine-brave_api = Brave Search API
engine-duckduckgo = DuckDuckGo
engine-bing = Bing
engine-brave = Brave Search
engine-mojeek = Mojeek
engine-startpage = Startpage
engine-yahoo = Yahoo
engine-ecosia = Ecosia
engine-aol = AOL
engine-ask = Ask.com
engine-baidu = Baidu
engine-baidu_json = Baidu (JSON)
engine-sogou_weixin = Sogou WeChat
engine-sogou = Sogou
engine-so360 = 360 Search
engine-bing_cn = Bing China
engine-qwant = Qwant
engine-swisscows = Swisscows
engine-google_news = Google News
engine-searxng = SearXNG
engine-arxiv = arXiv
engine-crossref = Crossref
engine-semantic_scholar = Semantic Scholar
engine-pubmed = PubMed
engine-openalex = OpenAlex
engine-github = GitHub
engine-stackexchange = Stack Exchange
engine-crates = crates.io
engine-npm = npm
engine-hackernews = Hacker News
engine-brave_images = Brave Images
engine-wikimedia_commons = Wikimedia Commons
engine-openverse = Openverse
engine-brave_videos = Brave Videos
engine-peertube = PeerTube
engine-brave_news = Brave News
engine-nominatim = OpenStreetMap Nominatim
engine-wikipedia_summary = Wikipedia summary
engine-wikipedia_summary_zh = Chinese Wikipedia summary
engine-wikidata = Wikidata
engine-duckduckgo_instant = DuckDuckGo Instant Answers

prefs-title = Preferences
prefs-intro = Kept in a cookie on this browser. The link at the bottom carries the same settings to another browser.
prefs-saved = Saved.
prefs-interface = Interface
prefs-locale = Interface language
prefs-locale-browser = The browser's
prefs-theme = Theme
theme-auto = The browser's (light or dark)
theme-light = Light
theme-dark = Dark
prefs-results = Results per page
prefs-results-default = { $n } (the server's default)
prefs-thumbnails = Show the engines' thumbnails (fetched through this server)
prefs-favicons = Show each site's icon beside its results (fetched through this server)
prefs-search = Searching
prefs-categories = Categories asked by default
prefs-engines = Engines asked
prefs-save = Save
prefs-share = These preferences as a link:
prefs-not-saved = Not saved:
prefs-too-big = These preferences take { $n } bytes in their cookie, and a browser keeps at most { $max }: shorten the hostname rules.
prefs-hostnames = Hostname rules
prefs-hostnames-help = Remove drops the results of these hosts; Replace writes another host into their links (youtube.com = invidious.example); Raise and Lower move them up or down the list. One pattern a line, laid over this server's own rules: a host suffix (pinterest.com matches www.pinterest.com, never notpinterest.com), or a regular expression matched against the whole host when the line has one of \ ^ $ * + ? ( ) [ ] | or a brace, e.g. (.*\.)?youtube\.com
prefs-hn-remove = Remove
prefs-hn-replace = Replace (pattern = host)
prefs-hn-boost = Raise
prefs-hn-lower = Lower
prefs-hn-error-line = { $list }, line { $line }: { $why }
prefs-hn-error = { $list }: { $why }

stats-summary = Up { $uptime } · { $searches } searches · cache { $hits } hits / { $misses } misses ({ $rate }) · { $coalesced } joined a search in flight · { $limited } refused by the rate limit (429) · { $overloaded } refused for load (503).
stats-cache-errors = { $n } cache errors
stats-suspended-count = { $n ->
    [one] 1 engine suspended after repeated failures.
   *[other] { $n } engines suspended after repeated failures.
}
stats-col-engine = Engine
stats-col-status = Status
stats-col-requests = Requests
stats-col-reliable = Reliable
stats-col-results = Results
stats-col-latency = Latency ms
stats-col-errors = Errors
stats-col-last-failure = Last failure
stats-suspended = suspended ({ $n } s more)
stats-failing = failing ({ $n } in a row: { $kind })
stats-not-asked = not asked yet
stats-disabled = disabled (asked only when a search names it)
stats-policy = Latency percentiles are exact over each engine's last { $ring } requests; reliability is the share of successes among its last { $window }. An engine is suspended for { $backoff } after { $n ->
    [one] 1 failure
   *[other] { $n } failures
} in a row, doubling up to { $max }; a CAPTCHA or HTTP 429 suspends it for { $blocked } at once. One success clears it.
stats-proxies = Proxies
stats-col-proxy = Proxy
stats-col-proxy-failures = Failures
stats-proxy-resting = resting ({ $n } s more)
stats-refresh = This page refreshes every 30 s.
stats-title = Engine health

number-group-separator = ,
date-format = { $monthname } { $day }, { $year }
month-1 = January
month-2 = February
month-3 = March
month-4 = April
month-5 = May
month-6 = June
month-7 = July
month-8 = August
month-9 = September
month-10 = October
month-11 = November
month-12 = December

error-title = { $status } — metasift
error-internal = Something went wrong on this server: { $detail }
error-not-found = There is no page at this address. Try the search box.
error-format-unknown = unknown format { $value }: use html, json, csv or rss
error-query-too-long = the query is { $n } characters long; at most { $max } are accepted
error-page-range = page { $value } is out of range: use a whole number from 1 to { $max }
error-limit = limit { $value } is not a positive whole number
error-method = unknown dedup method { $value }: use feature-code, simhash, rabin or none
error-fusion = unknown fusion method { $value }: use position, rrf, combsum, combmnz or borda
error-threshold = { $name } { $value } is not a number between 0 and 1
error-body-too-large = the request body is larger than { $n } bytes
error-body-unreadable = the request body could not be read: { $detail }
error-query-empty = the query is empty: pass it as q=…
error-unknown-engines = no engine is configured under the name(s) asked for: { $names }
error-operators-only = the query holds only operators (site:, filetype:, …) that none of the engines asked understands: add words to search for
error-dedup-settings = { $field } { $why }
error-format-refused = format={ $format } is not served by this instance (it serves: { $formats })
error-overloaded = Too many searches are running right now. Please try again in a moment.
error-render = The results could not be shown (an error in the page). Please try again.
error-rate-limited-searches = Too many searches from your address. Please wait { $n } s and try again.
error-rate-limited-suggestions = Too many suggestion requests from your address. Please wait { $n } s and try again.
error-rate-limited-lab = Too many lab runs from your address. Please wait { $n } s and try again.
status-400 = Bad Request
status-403 = Forbidden
status-404 = Not Found
status-405 = Method Not Allowed
status-408 = Request Timeout
status-413 = Payload Too Large
status-415 = Unsupported Media Type
status-422 = Unprocessable Entity
status-429 = Too Many Requests
status-500 = Internal Server Error
status-502 = Bad Gateway
status-503 = Service Unavailable
status-504 = Gateway Timeout

lab-title = Lab — metasift
lab-fusion-link = fusion methods on judged queries
lab-fusion-title = Fusion lab
lab-fusion-heading = The lab: fusion methods on judged queries
lab-fusion-intro = Measure every fusion method and every engine alone against relevance judgements, on recorded engine answers — the same measurement as the command line’s
lab-fusion-to-dedup = dedup methods on labeled data
lab-fusion-no-dir = No data folder is configured: set [lab] data_dir to a folder holding judged sets (NAME.qrels with NAME.topics.tsv, or NAME.qrels.json, and a recordings folder beside them).
lab-fusion-no-sets = The data folder holds no judged set (NAME.qrels or NAME.qrels.json).
lab-fusion-set = Judged set
lab-fusion-go = Measure
lab-fusion-run = Run
lab-fusion-configured = configured
lab-fusion-best-engine = best fixed engine
lab-fusion-tests = Paired randomisation tests
lab-fusion-tests-how = Two-sided, on each query's nDCG, between every two fusion methods and between the configured one and the best fixed engine; permutations
lab-fusion-wins = a better / worse
lab-fusion-per-query = nDCG per query
lab-fusion-query = Query
lab-fusion-engines = Engines
lab-fusion-queries = { $n ->
    [one] 1 query
   *[other] { $n } queries
}
lab-fusion-judgements = { $n ->
    [one] 1 judgement
   *[other] { $n } judgements
}
lab-fusion-err-k = k must be a whole number from 1 to 100, not { $value }
lab-heading = The lab: dedup methods on labeled data
lab-intro = Sweep a threshold over a labeled data set and compare precision, recall and F1 of each method — the same measurement as the command line’s
lab-dataset = Data set
lab-no-files = The data folder holds no .tsv or .jsonl file.
lab-file-label = A file from the data folder
lab-file-none = — none (use the upload) —
lab-upload-label = Or upload TSV pairs or JSON Lines (pairs, or records with a group label), at most { $size } and { $n } pairs:
lab-upload-only-label = Upload TSV pairs or JSON Lines (pairs, or records with a group label), at most { $size } and { $n } pairs:
lab-paste-label = Or paste them
lab-methods = Methods
lab-range = Threshold range (at most { $n } points)
lab-from = from
lab-to = to
lab-step = step
lab-sweep-os2 = sweep os2 (titles differ)
lab-sweep-os1 = sweep os1 (titles equal)
lab-floor-label = best setting: the highest recall at precision ≥
lab-run = Run the sweep
lab-pairs-judged = { $n } pairs judged per setting
lab-sweep = sweep
lab-dropped = { $n ->
    [one] 1 row dropped (middle band or unlabeled)
   *[other] { $n } rows dropped (middle band or unlabeled)
}
lab-bad-lines = { $n ->
    [one] 1 bad line skipped
   *[other] { $n } bad lines skipped
}
lab-chart-caption = Precision (solid), recall (dashed) and F1 (dotted) against the threshold.
lab-chart-x = threshold (feature-code { $os }, rabin block_threshold; simhash distance = (1-t)*32)
lab-chart-floor = precision floor
lab-chart-f1 = F1
lab-baseline = { $positives } duplicate and { $negatives } distinct pairs. Trivial baselines: merging every pair scores precision { $precision }, recall 1.000, F1 { $f1 }; merging none, recall 0. A setting is worth its name where it beats both.
lab-best-heading = Best setting per method (highest recall at precision ≥ { $floor })
lab-every-setting = Every setting
lab-yes = yes
lab-no-most-precise = no — the most precise setting
lab-layout-tsv-pairs = tsv pairs
lab-layout-json-pairs = json pairs
lab-layout-record-sets = record sets
lab-col-method = method
lab-col-setting = setting
lab-col-reaches = reaches { $floor }
lab-col-threshold = threshold
lab-col-os1 = os1
lab-col-os2 = os2
lab-col-max_distance = max_distance
lab-col-block_threshold = block_threshold
lab-col-precision = precision
lab-col-recall = recall
lab-col-f1 = f1
lab-col-tp = tp
lab-col-fp = fp
lab-col-seconds = seconds
lab-err-sweep-os = sweep_os { $value }: expected os1 or os2
lab-err-method = method { $value }: expected one of feature-code, simhash, rabin, none
lab-err-not-number = { $name } { $value } is not a number
lab-err-step = step must be above 0
lab-err-range = the range needs 0 ≤ from ≤ to ≤ 1
lab-err-sweep = { $detail }
lab-err-floor = precision floor { $value }: expected a number from 0 to 1
lab-err-not-offered = { $name } is not one of the data files offered here
lab-err-upload-size = the upload is { $size }; at most { $max } is accepted
lab-err-upload-too-large = the upload is larger than { $max }; use `metasift lab` for big files
lab-err-magic = this is { $what }, not labeled text: upload TSV pairs or JSON Lines
lab-kind-png = a PNG image
lab-kind-jpeg = a JPEG image
lab-kind-gif = a GIF image
lab-kind-riff = a RIFF (WebP/WAV) file
lab-kind-pdf = a PDF document
lab-kind-zip = a ZIP archive (or an Office document)
lab-kind-gzip = a gzip archive
lab-kind-bmp = a BMP image
lab-err-binary = this is a binary file (it contains NUL bytes), not labeled text: upload TSV pairs or JSON Lines
lab-err-utf8 = the file is not UTF-8 text (bad byte at offset { $n }): upload TSV pairs or JSON Lines in UTF-8
lab-err-load = { $detail }
lab-err-no-usable = { $file }: no usable labeled line ({ $bad } bad, { $dropped } dropped)
lab-err-no-usable-first = { $file }: no usable labeled line ({ $bad } bad, { $dropped } dropped) — first problem: { $first }
lab-err-too-many-items = { $file }: { $n } pairs or records; at most { $max } are judged in the browser — use `metasift lab` for more
lab-err-too-many-pairs = { $file }: { $n } record pairs to compare per setting; at most { $max } are compared in the browser — split the large sets or use `metasift lab`
lab-err-too-many-pairs-set = { $file }: { $n } record pairs to compare per setting (the largest set, { $query }, has { $records } records: { $pairs } pairs); at most { $max } are compared in the browser — split the large sets or use `metasift lab`
lab-err-busy = { $n } lab runs are already going; try again in a few seconds
lab-err-failed = the sweep failed unexpectedly
lab-err-choose = choose a data file or upload one
lab-err-no-dir = no data folder is configured ([lab] data_dir): upload a file instead
lab-err-read = { $file }: { $detail }
lab-err-no-method = tick at least one method
lab-err-form = { $detail }
lab-kept-missing = no kept lab run has the id { $id } (the last { $n } runs are kept while the server runs): run the sweep again at /lab
