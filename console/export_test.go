package console

// USDText is usdText, for the external tests that read money off a page.
var USDText = usdText
