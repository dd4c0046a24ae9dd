# test programs (filled below)
