package card

import "crypto"

const crypto256 = crypto.SHA256
